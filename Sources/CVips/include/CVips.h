// The parts of libvips that ClassToday calls, bound at run time with dlopen/dlsym: the build needs no libvips headers
// and no pkg-config, and a machine without libvips still runs the server (without image variants).
//
// libvips passes optional arguments as NULL-terminated name/value lists, which Swift cannot call; the wrappers here
// call them through typed function pointers and offer Swift fixed-argument functions. Every wrapper requires a
// successful ct_vips_bind() first.
#ifndef CLASSTODAY_CVIPS_H
#define CLASSTODAY_CVIPS_H

#include <stddef.h>

/// A libvips image (a GObject); opaque here, released with ct_vips_release().
typedef struct _VipsImage VipsImage;

/// libvips' `VipsInterpretation` value for 8-bit sRGB, the one this code tests for.
enum { CT_VIPS_INTERPRETATION_SRGB = 22 };
/// libvips' `VipsBandFormat` value for unsigned 8-bit samples.
enum { CT_VIPS_FORMAT_UCHAR = 0 };

/// Receives one message that libvips (GLib domain "VIPS") logged: `level` is 0 for a warning, 1 for a critical
/// warning, 2 for a plain message.
typedef void (*ct_vips_log_function)(int level, const char *message);

/// Opens the shared library at `path` (a file name is searched the usual way, e.g. "libvips.so.42") and binds every
/// function used here. Binding happens once per process; later calls only check that `path` opens. Returns 0, or -1
/// with a one-line reason (the loader's message or the missing function) in `reason`.
int ct_vips_bind(const char *path, char *reason, size_t reason_size);

/// libvips' version: `field` 0 major, 1 minor, 2 micro.
int ct_vips_version(int field);

/// Starts libvips once per process with small, predictable resource use: one worker thread per pipeline, no
/// operation cache (every image is different), the loaders libvips marks untrusted (ImageMagick, PDF, MAT...)
/// blocked, and its log messages sent to `log`. Returns 0 on success.
int ct_vips_start(const char *program, ct_vips_log_function log);

/// Whether ct_vips_start() succeeded in this process: the other functions may be called.
int ct_vips_is_started(void);

/// Opens the header of the image file at `path` for sequential reading; pixels are decoded only when read.
VipsImage *ct_vips_open_header(const char *path);

/// Opens the header of the image in `buffer` (which must outlive the image) for sequential reading.
VipsImage *ct_vips_open_buffer(const void *buffer, size_t length);

/// Whether the opened image carries an embedded ICC profile.
int ct_vips_has_profile(VipsImage *image);

/// The image's width in pixels.
int ct_vips_width(VipsImage *image);
/// The image's height in pixels.
int ct_vips_height(VipsImage *image);
/// The image's number of bands.
int ct_vips_bands(VipsImage *image);
/// The image's `VipsInterpretation`.
int ct_vips_interpretation(VipsImage *image);
/// The image's `VipsBandFormat`.
int ct_vips_format(VipsImage *image);
/// Whether the image has an alpha band.
int ct_vips_has_alpha(VipsImage *image);
/// Whether the image carries the metadata item `name`.
int ct_vips_has_field(VipsImage *image, const char *name);

/// Shrinks the image file at `path` to fit `width` x `height` (never enlarging), shrinking on load where the format
/// allows it and applying the EXIF orientation. Decoding stops with an error at a truncated or damaged file
/// (`fail_on` truncated) rather than filling the rest with grey. With `to_srgb` (for images with an embedded profile)
/// the pixels are transformed from that profile to sRGB; images without one are taken to be sRGB already.
int ct_vips_thumbnail(const char *path, VipsImage **out, int width, int height, int to_srgb);

/// A copy of the image without any metadata item (EXIF, XMP, IPTC, ICC profile, orientation...), so that nothing of
/// the original's metadata can reach an encoder (libvips 8.14's WebP encoder ignores `strip`).
int ct_vips_strip(VipsImage *in, VipsImage **out);

/// Converts to 8-bit sRGB (grey, CMYK, 16-bit and other spaces), keeping an alpha band.
int ct_vips_srgb(VipsImage *in, VipsImage **out);

/// Drops the alpha band onto a white background.
int ct_vips_flatten_white(VipsImage *in, VipsImage **out);

/// Casts to unsigned 8-bit samples.
int ct_vips_uchar(VipsImage *in, VipsImage **out);

/// Encodes a baseline JPEG at `quality` with every metadata item removed.
int ct_vips_jpeg(VipsImage *in, void **buffer, size_t *length, int quality);

/// Encodes a lossy WebP at `quality` with every metadata item removed.
int ct_vips_webp(VipsImage *in, void **buffer, size_t *length, int quality);

/// Encodes a PNG (used by tests and the benchmark to build inputs).
int ct_vips_png(VipsImage *in, void **buffer, size_t *length);

/// Encodes a JPEG keeping metadata (used by tests and the benchmark to build camera-like inputs).
int ct_vips_jpeg_keep(VipsImage *in, void **buffer, size_t *length, int quality);

/// Encodes a HEVC-coded HEIC (used by tests to build inputs).
int ct_vips_heic(VipsImage *in, void **buffer, size_t *length, int quality);

/// Writes a file's worth of pixels into memory, for reading single pixels.
VipsImage *ct_vips_copy_memory(VipsImage *in);

/// A `width` x `height` 3-band sRGB image of one colour.
int ct_vips_solid(VipsImage **out, int width, int height, double red, double green, double blue);

/// Places `right` beside `left`.
int ct_vips_join_horizontally(VipsImage *left, VipsImage *right, VipsImage **out);

/// Gaussian noise of `width` x `height` with 3 bands, mean 128 and deviation `sigma`, as 8-bit sRGB: a stand-in for
/// the fine detail of camera photos, which JPEG cannot compress away.
int ct_vips_noise(VipsImage **out, int width, int height, double sigma);

/// Reads one pixel's band values into `values` (at most `count`); returns how many bands it has, or -1.
int ct_vips_pixel(VipsImage *in, int x, int y, double *values, int count);

/// Keeps the first band as grey (`bands` 1), adds a fully transparent alpha band to it (`bands` 2) or to the image
/// (`bands` 4). Used by tests.
int ct_vips_test_bands(VipsImage *in, VipsImage **out, int bands);

/// Sets the integer metadata item `name` (the EXIF orientation, say).
void ct_vips_set_int(VipsImage *image, const char *name, int value);
/// Sets the string metadata item `name` (an EXIF tag such as `exif-ifd0-Make`).
void ct_vips_set_string(VipsImage *image, const char *name, const char *value);
/// Sets the binary metadata item `name` (`xmp-data`) to a copy of `length` bytes at `data`.
void ct_vips_set_blob(VipsImage *image, const char *name, const void *data, size_t length);

/// The errors libvips reported since the last ct_vips_clear_error(), as one string owned by libvips.
const char *ct_vips_error(void);
/// Clears libvips' error buffer.
void ct_vips_clear_error(void);

/// Releases an image (NULL is ignored).
void ct_vips_release(VipsImage *image);

/// Releases a buffer libvips returned.
void ct_vips_free(void *buffer);

#endif
