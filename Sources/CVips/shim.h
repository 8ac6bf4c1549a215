// The parts of libvips that ClassToday calls, as fixed-argument functions: Swift cannot call C variadic
// functions, and libvips passes optional arguments as NULL-terminated name/value lists.
#ifndef CLASSTODAY_CVIPS_SHIM_H
#define CLASSTODAY_CVIPS_SHIM_H

#include <malloc.h>
#include <vips/vips.h>

/// Starts libvips once per process with small, predictable resource use: one worker thread per pipeline, no
/// operation cache (every image is different), and the loaders libvips marks untrusted (ImageMagick, PDF, MAT...)
/// blocked. Returns 0 on success.
static inline int ct_vips_start(const char *program) {
    if (VIPS_INIT(program) != 0) return -1;
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_block_untrusted_set(TRUE);
    return 0;
}

/// Opens the header of the image file at `path` for sequential reading; pixels are decoded only when read.
static inline VipsImage *ct_vips_open_header(const char *path) {
    return vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

/// Opens the header of the image in `buffer` (which must outlive the image) for sequential reading.
static inline VipsImage *ct_vips_open_buffer(const void *buffer, size_t length) {
    return vips_image_new_from_buffer(buffer, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

/// Whether the opened image carries an embedded ICC profile.
static inline int ct_vips_has_profile(VipsImage *image) {
    return vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0;
}

/// Shrinks the image file at `path` to fit `width` x `height` (never enlarging), shrinking on load where the format
/// allows it and applying the EXIF orientation. Decoding stops with an error at a truncated or damaged file
/// (`fail_on` truncated) rather than filling the rest with grey. With `to_srgb` (for images with an embedded profile) the pixels are
/// transformed from that profile to sRGB; images without one are taken to be sRGB already.
static inline int ct_vips_thumbnail(const char *path, VipsImage **out, int width, int height, int to_srgb) {
    if (to_srgb) {
        return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_DOWN,
                              "fail_on", VIPS_FAIL_ON_TRUNCATED, "export_profile", "srgb", NULL);
    }
    return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_DOWN, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

/// A copy of the image without any metadata item (EXIF, XMP, IPTC, ICC profile, orientation...), so that nothing
/// of the original's metadata can reach an encoder (libvips 8.14's WebP encoder ignores `strip`).
static inline int ct_vips_strip(VipsImage *in, VipsImage **out) {
    if (vips_copy(in, out, NULL)) return -1;
    gchar **fields = vips_image_get_fields(*out);
    for (int i = 0; fields[i]; i++) vips_image_remove(*out, fields[i]);
    g_strfreev(fields);
    return 0;
}

/// Converts to 8-bit sRGB (grey, CMYK, 16-bit and other spaces), keeping an alpha band.
static inline int ct_vips_srgb(VipsImage *in, VipsImage **out) {
    return vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}

/// Drops the alpha band onto a white background.
static inline int ct_vips_flatten_white(VipsImage *in, VipsImage **out) {
    VipsArrayDouble *background = vips_array_double_newv(3, 255.0, 255.0, 255.0);
    int result = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

/// Casts to unsigned 8-bit samples.
static inline int ct_vips_uchar(VipsImage *in, VipsImage **out) {
    return vips_cast_uchar(in, out, NULL);
}

/// Encodes a baseline JPEG at `quality` with every metadata item removed.
static inline int ct_vips_jpeg(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
}

/// Encodes a lossy WebP at `quality` with every metadata item removed.
static inline int ct_vips_webp(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_webpsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, NULL);
}

/// Encodes a PNG (used by tests and the benchmark to build inputs).
static inline int ct_vips_png(VipsImage *in, void **buffer, size_t *length) {
    return vips_pngsave_buffer(in, buffer, length, NULL);
}

/// Encodes a JPEG keeping metadata (used by tests and the benchmark to build camera-like inputs).
static inline int ct_vips_jpeg_keep(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, NULL);
}

/// Encodes a HEVC-coded HEIC (used by tests to build inputs).
static inline int ct_vips_heic(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_heifsave_buffer(in, buffer, length, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, NULL);
}

/// Writes a file's worth of pixels into memory, for reading single pixels.
static inline VipsImage *ct_vips_copy_memory(VipsImage *in) {
    return vips_image_copy_memory(in);
}

/// A `width` x `height` 3-band sRGB image of one colour.
static inline int ct_vips_solid(VipsImage **out, int width, int height, double red, double green, double blue) {
    VipsImage *black = NULL, *colour = NULL;
    double add[3] = {red, green, blue};
    double multiply[3] = {1, 1, 1};
    if (vips_black(&black, width, height, "bands", 3, NULL)) return -1;
    int result = vips_linear(black, &colour, multiply, add, 3, NULL);
    g_object_unref(black);
    if (result) return result;
    result = vips_cast_uchar(colour, out, NULL);
    g_object_unref(colour);
    if (result) return result;
    (*out)->Type = VIPS_INTERPRETATION_sRGB;
    return 0;
}

/// Places `right` beside `left`.
static inline int ct_vips_join_horizontally(VipsImage *left, VipsImage *right, VipsImage **out) {
    return vips_join(left, right, out, VIPS_DIRECTION_HORIZONTAL, NULL);
}

/// Gaussian noise of `width` x `height` with 3 bands, mean 128 and deviation `sigma`, as 8-bit sRGB: a stand-in for
/// the fine detail of camera photos, which JPEG cannot compress away.
static inline int ct_vips_noise(VipsImage **out, int width, int height, double sigma) {
    VipsImage *bands[3] = {NULL, NULL, NULL}, *joined = NULL;
    int result = 0;
    for (int i = 0; i < 3 && !result; i++) {
        result = vips_gaussnoise(&bands[i], width, height, "sigma", sigma, "mean", 128.0, NULL);
    }
    if (!result) result = vips_bandjoin(bands, &joined, 3, NULL);
    for (int i = 0; i < 3; i++) if (bands[i]) g_object_unref(bands[i]);
    if (result) return result;
    result = vips_cast_uchar(joined, out, NULL);
    g_object_unref(joined);
    if (!result) (*out)->Type = VIPS_INTERPRETATION_sRGB;
    return result;
}

/// Reads one pixel's band values into `values` (at most `count`); returns how many bands it has, or -1.
static inline int ct_vips_pixel(VipsImage *in, int x, int y, double *values, int count) {
    double *vector = NULL;
    int length = 0;
    if (vips_getpoint(in, &vector, &length, x, y, NULL)) return -1;
    for (int i = 0; i < length && i < count; i++) values[i] = vector[i];
    g_free(vector);
    return length;
}

/// Keeps the first band as grey (`bands` 1), adds a fully transparent alpha band to it (`bands` 2) or to the image
/// (`bands` 4). Used by tests.
static inline int ct_vips_test_bands(VipsImage *in, VipsImage **out, int bands) {
    VipsImage *grey = NULL;
    int result = 0;
    if (bands <= 2) {
        if (vips_extract_band(in, &grey, 0, NULL)) return -1;
        grey->Type = VIPS_INTERPRETATION_B_W;
        if (bands == 1) { *out = grey; return 0; }
        result = vips_bandjoin_const1(grey, out, 0.0, NULL);
        g_object_unref(grey);
        return result;
    }
    return vips_bandjoin_const1(in, out, 0.0, NULL);
}

/// Returns freed heap memory to the system (the benchmark calls it before measuring peak memory).
static inline void ct_release_free_memory(void) {
    malloc_trim(0);
}

/// Releases an image.
static inline void ct_vips_release(VipsImage *image) {
    if (image) g_object_unref(image);
}

/// Releases a buffer libvips returned.
static inline void ct_vips_free(void *buffer) {
    g_free(buffer);
}

#endif
