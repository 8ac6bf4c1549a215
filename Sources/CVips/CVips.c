// libvips bound at run time: the declarations below are the few libvips and GLib functions ClassToday calls,
// written out here (as pyvips' ABI mode and ruby-vips do) so that the build needs no libvips headers. Variadic
// functions are called through function pointers of their variadic type, with a NULL-terminated option list.
#include "CVips.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/// The ABI libvips.so.42 stands for: `vips_version(3) - vips_version(5)` (its libtool current minus age).
#define CT_VIPS_ABI 42
/// The oldest libvips with everything used here: `fail_on` (8.12) and `vips_block_untrusted_set` (8.13).
#define CT_VIPS_MINIMUM_MINOR 13

// The values of libvips' and GLib's enums that are passed below (stable parts of their ABI).
enum { CT_ACCESS_SEQUENTIAL = 1, CT_SIZE_DOWN = 2, CT_FAIL_ON_TRUNCATED = 1, CT_DIRECTION_HORIZONTAL = 0 };
enum { CT_INTERPRETATION_B_W = 1, CT_HEIF_COMPRESSION_HEVC = 1 };
enum { CT_G_LOG_FLAG_RECURSION = 1 << 0, CT_G_LOG_FLAG_FATAL = 1 << 1, CT_G_LOG_LEVEL_CRITICAL = 1 << 3,
       CT_G_LOG_LEVEL_WARNING = 1 << 4, CT_G_LOG_LEVEL_MESSAGE = 1 << 5 };

typedef void (*g_log_func)(const char *domain, int level, const char *message, void *user_data);

/// The bound functions, by their libvips (or GLib) name.
static struct {
    int (*vips_init)(const char *);
    int (*vips_version)(int);
    void (*vips_concurrency_set)(int);
    void (*vips_cache_set_max)(int);
    void (*vips_cache_set_max_mem)(size_t);
    void (*vips_cache_set_max_files)(int);
    void (*vips_block_untrusted_set)(int);
    VipsImage *(*vips_image_new_from_file)(const char *, ...);
    VipsImage *(*vips_image_new_from_buffer)(const void *, size_t, const char *, ...);
    unsigned long (*vips_image_get_typeof)(const VipsImage *, const char *);
    int (*vips_image_get_width)(const VipsImage *);
    int (*vips_image_get_height)(const VipsImage *);
    int (*vips_image_get_bands)(const VipsImage *);
    int (*vips_image_get_interpretation)(const VipsImage *);
    int (*vips_image_get_format)(const VipsImage *);
    int (*vips_image_hasalpha)(VipsImage *);
    int (*vips_thumbnail)(const char *, VipsImage **, int, ...);
    int (*vips_copy)(VipsImage *, VipsImage **, ...);
    char **(*vips_image_get_fields)(VipsImage *);
    int (*vips_image_remove)(VipsImage *, const char *);
    int (*vips_colourspace)(VipsImage *, VipsImage **, int, ...);
    int (*vips_flatten)(VipsImage *, VipsImage **, ...);
    void *(*vips_array_double_newv)(int, ...);
    void (*vips_area_unref)(void *);
    int (*vips_cast_uchar)(VipsImage *, VipsImage **, ...);
    int (*vips_jpegsave_buffer)(VipsImage *, void **, size_t *, ...);
    int (*vips_webpsave_buffer)(VipsImage *, void **, size_t *, ...);
    int (*vips_pngsave_buffer)(VipsImage *, void **, size_t *, ...);
    int (*vips_heifsave_buffer)(VipsImage *, void **, size_t *, ...);
    VipsImage *(*vips_image_copy_memory)(VipsImage *);
    int (*vips_black)(VipsImage **, int, int, ...);
    int (*vips_linear)(VipsImage *, VipsImage **, const double *, const double *, int, ...);
    int (*vips_join)(VipsImage *, VipsImage *, VipsImage **, int, ...);
    int (*vips_gaussnoise)(VipsImage **, int, int, ...);
    int (*vips_bandjoin)(VipsImage **, VipsImage **, int, ...);
    int (*vips_getpoint)(VipsImage *, double **, int *, int, int, ...);
    int (*vips_extract_band)(VipsImage *, VipsImage **, int, ...);
    int (*vips_bandjoin_const1)(VipsImage *, VipsImage **, double, ...);
    void (*vips_image_set_int)(VipsImage *, const char *, int);
    void (*vips_image_set_string)(VipsImage *, const char *, const char *);
    void (*vips_image_set_blob_copy)(VipsImage *, const char *, const void *, size_t);
    const char *(*vips_error_buffer)(void);
    void (*vips_error_clear)(void);
    void (*g_object_unref)(void *);
    void (*g_free)(void *);
    void (*g_strfreev)(char **);
    unsigned (*g_log_set_handler)(const char *, int, g_log_func, void *);
} vips;

/// A function to bind: its name and where its address goes.
typedef struct {
    const char *name;
    void **address;
} binding;

#define BIND(function) {#function, (void **)&vips.function}

static const binding bindings[] = {
    BIND(vips_init), BIND(vips_version), BIND(vips_concurrency_set), BIND(vips_cache_set_max),
    BIND(vips_cache_set_max_mem), BIND(vips_cache_set_max_files), BIND(vips_block_untrusted_set),
    BIND(vips_image_new_from_file), BIND(vips_image_new_from_buffer), BIND(vips_image_get_typeof),
    BIND(vips_image_get_width), BIND(vips_image_get_height), BIND(vips_image_get_bands),
    BIND(vips_image_get_interpretation), BIND(vips_image_get_format), BIND(vips_image_hasalpha), BIND(vips_thumbnail),
    BIND(vips_copy), BIND(vips_image_get_fields), BIND(vips_image_remove), BIND(vips_colourspace), BIND(vips_flatten),
    BIND(vips_array_double_newv), BIND(vips_area_unref), BIND(vips_cast_uchar), BIND(vips_jpegsave_buffer),
    BIND(vips_webpsave_buffer), BIND(vips_pngsave_buffer), BIND(vips_heifsave_buffer), BIND(vips_image_copy_memory),
    BIND(vips_black), BIND(vips_linear), BIND(vips_join), BIND(vips_gaussnoise), BIND(vips_bandjoin),
    BIND(vips_getpoint), BIND(vips_extract_band), BIND(vips_bandjoin_const1), BIND(vips_image_set_int),
    BIND(vips_image_set_string), BIND(vips_image_set_blob_copy), BIND(vips_error_buffer), BIND(vips_error_clear),
    BIND(g_object_unref), BIND(g_free), BIND(g_strfreev), BIND(g_log_set_handler),
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int bound = 0;
static int started = 0;
static int start_result = -1;
static ct_vips_log_function log_function = NULL;

/// Binds every function from `library`; fills `reason` and returns -1 at the first one missing.
static int bind_functions(void *library, char *reason, size_t reason_size) {
    for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++) {
        *bindings[i].address = dlsym(library, bindings[i].name);
        if (!*bindings[i].address) {
            snprintf(reason, reason_size, "the library has no function %s", bindings[i].name);
            return -1;
        }
    }
    int abi = vips.vips_version(3) - vips.vips_version(5);
    int major = vips.vips_version(0), minor = vips.vips_version(1);
    if (abi != CT_VIPS_ABI || major != 8 || minor < CT_VIPS_MINIMUM_MINOR) {
        snprintf(reason, reason_size, "the library is libvips %d.%d (ABI %d); libvips 8.%d or later of ABI %d is needed",
                 major, minor, abi, CT_VIPS_MINIMUM_MINOR, CT_VIPS_ABI);
        return -1;
    }
    return 0;
}

int ct_vips_bind(const char *path, char *reason, size_t reason_size) {
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *message = dlerror();
        snprintf(reason, reason_size, "%s", message ? message : "the library cannot be opened");
        return -1;
    }
    pthread_mutex_lock(&lock);
    int result = 0;
    if (!bound) {
        result = bind_functions(library, reason, reason_size);
        if (result == 0) bound = 1;
        else memset(&vips, 0, sizeof(vips));
    }
    pthread_mutex_unlock(&lock);
    // The library stays open for the life of the process (a bound one must; an unbound one only counts once more).
    return result;
}

int ct_vips_version(int field) {
    return vips.vips_version(field);
}

/// Passes GLib's messages of the "VIPS" domain to the function given to ct_vips_start().
static void forward_log(const char *domain, int level, const char *message, void *user_data) {
    (void)domain;
    (void)user_data;
    int kind = (level & CT_G_LOG_LEVEL_CRITICAL) ? 1 : (level & CT_G_LOG_LEVEL_MESSAGE) ? 2 : 0;
    if (log_function) log_function(kind, message ? message : "");
}

int ct_vips_start(const char *program, ct_vips_log_function log) {
    pthread_mutex_lock(&lock);
    if (!started) {
        started = 1;
        log_function = log;
        vips.g_log_set_handler("VIPS",
                               CT_G_LOG_LEVEL_WARNING | CT_G_LOG_LEVEL_CRITICAL | CT_G_LOG_LEVEL_MESSAGE
                                   | CT_G_LOG_FLAG_FATAL | CT_G_LOG_FLAG_RECURSION,
                               forward_log, NULL);
        start_result = vips.vips_init(program) == 0 ? 0 : -1;
        if (start_result == 0) {
            vips.vips_concurrency_set(1);
            vips.vips_cache_set_max(0);
            vips.vips_cache_set_max_mem(0);
            vips.vips_cache_set_max_files(0);
            vips.vips_block_untrusted_set(1);
        }
    }
    int result = start_result;
    pthread_mutex_unlock(&lock);
    return result;
}

int ct_vips_is_started(void) {
    pthread_mutex_lock(&lock);
    int result = started && start_result == 0;
    pthread_mutex_unlock(&lock);
    return result;
}

VipsImage *ct_vips_open_header(const char *path) {
    return vips.vips_image_new_from_file(path, "access", CT_ACCESS_SEQUENTIAL, NULL);
}

VipsImage *ct_vips_open_buffer(const void *buffer, size_t length) {
    return vips.vips_image_new_from_buffer(buffer, length, "", "access", CT_ACCESS_SEQUENTIAL, NULL);
}

int ct_vips_has_profile(VipsImage *image) {
    return ct_vips_has_field(image, "icc-profile-data");
}

int ct_vips_width(VipsImage *image) { return vips.vips_image_get_width(image); }
int ct_vips_height(VipsImage *image) { return vips.vips_image_get_height(image); }
int ct_vips_bands(VipsImage *image) { return vips.vips_image_get_bands(image); }
int ct_vips_interpretation(VipsImage *image) { return vips.vips_image_get_interpretation(image); }
int ct_vips_format(VipsImage *image) { return vips.vips_image_get_format(image); }
int ct_vips_has_alpha(VipsImage *image) { return vips.vips_image_hasalpha(image) != 0; }
int ct_vips_has_field(VipsImage *image, const char *name) { return vips.vips_image_get_typeof(image, name) != 0; }

int ct_vips_thumbnail(const char *path, VipsImage **out, int width, int height, int to_srgb) {
    if (to_srgb) {
        return vips.vips_thumbnail(path, out, width, "height", height, "size", CT_SIZE_DOWN,
                                   "fail_on", CT_FAIL_ON_TRUNCATED, "export_profile", "srgb", NULL);
    }
    return vips.vips_thumbnail(path, out, width, "height", height, "size", CT_SIZE_DOWN,
                               "fail_on", CT_FAIL_ON_TRUNCATED, NULL);
}

int ct_vips_strip(VipsImage *in, VipsImage **out) {
    if (vips.vips_copy(in, out, NULL)) return -1;
    char **fields = vips.vips_image_get_fields(*out);
    for (int i = 0; fields[i]; i++) vips.vips_image_remove(*out, fields[i]);
    vips.g_strfreev(fields);
    return 0;
}

int ct_vips_srgb(VipsImage *in, VipsImage **out) {
    return vips.vips_colourspace(in, out, CT_VIPS_INTERPRETATION_SRGB, NULL);
}

int ct_vips_flatten_white(VipsImage *in, VipsImage **out) {
    void *background = vips.vips_array_double_newv(3, 255.0, 255.0, 255.0);
    int result = vips.vips_flatten(in, out, "background", background, NULL);
    vips.vips_area_unref(background);
    return result;
}

int ct_vips_uchar(VipsImage *in, VipsImage **out) {
    return vips.vips_cast_uchar(in, out, NULL);
}

int ct_vips_jpeg(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips.vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", 1, "optimize_coding", 1, NULL);
}

int ct_vips_webp(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips.vips_webpsave_buffer(in, buffer, length, "Q", quality, "strip", 1, NULL);
}

int ct_vips_png(VipsImage *in, void **buffer, size_t *length) {
    return vips.vips_pngsave_buffer(in, buffer, length, NULL);
}

int ct_vips_jpeg_keep(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips.vips_jpegsave_buffer(in, buffer, length, "Q", quality, NULL);
}

int ct_vips_heic(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips.vips_heifsave_buffer(in, buffer, length, "Q", quality, "compression", CT_HEIF_COMPRESSION_HEVC, NULL);
}

VipsImage *ct_vips_copy_memory(VipsImage *in) {
    return vips.vips_image_copy_memory(in);
}

/// A copy of `in` marked with `interpretation`; releases `in`.
static int reinterpret(VipsImage *in, VipsImage **out, int interpretation) {
    int result = vips.vips_copy(in, out, "interpretation", interpretation, NULL);
    vips.g_object_unref(in);
    return result;
}

/// `in` cast to 8-bit and marked sRGB; releases `in`.
static int to_srgb8(VipsImage *in, VipsImage **out) {
    VipsImage *cast = NULL;
    int result = vips.vips_cast_uchar(in, &cast, NULL);
    vips.g_object_unref(in);
    if (result) return result;
    return reinterpret(cast, out, CT_VIPS_INTERPRETATION_SRGB);
}

int ct_vips_solid(VipsImage **out, int width, int height, double red, double green, double blue) {
    VipsImage *black = NULL, *colour = NULL;
    double add[3] = {red, green, blue};
    double multiply[3] = {1, 1, 1};
    if (vips.vips_black(&black, width, height, "bands", 3, NULL)) return -1;
    int result = vips.vips_linear(black, &colour, multiply, add, 3, NULL);
    vips.g_object_unref(black);
    if (result) return result;
    return to_srgb8(colour, out);
}

int ct_vips_join_horizontally(VipsImage *left, VipsImage *right, VipsImage **out) {
    return vips.vips_join(left, right, out, CT_DIRECTION_HORIZONTAL, NULL);
}

int ct_vips_noise(VipsImage **out, int width, int height, double sigma) {
    VipsImage *bands[3] = {NULL, NULL, NULL}, *joined = NULL;
    int result = 0;
    for (int i = 0; i < 3 && !result; i++) {
        result = vips.vips_gaussnoise(&bands[i], width, height, "sigma", sigma, "mean", 128.0, NULL);
    }
    if (!result) result = vips.vips_bandjoin(bands, &joined, 3, NULL);
    for (int i = 0; i < 3; i++) if (bands[i]) vips.g_object_unref(bands[i]);
    if (result) return result;
    return to_srgb8(joined, out);
}

int ct_vips_pixel(VipsImage *in, int x, int y, double *values, int count) {
    double *vector = NULL;
    int length = 0;
    if (vips.vips_getpoint(in, &vector, &length, x, y, NULL)) return -1;
    for (int i = 0; i < length && i < count; i++) values[i] = vector[i];
    vips.g_free(vector);
    return length;
}

int ct_vips_test_bands(VipsImage *in, VipsImage **out, int bands) {
    VipsImage *band = NULL, *grey = NULL;
    if (bands > 2) return vips.vips_bandjoin_const1(in, out, 0.0, NULL);
    if (vips.vips_extract_band(in, &band, 0, NULL)) return -1;
    if (reinterpret(band, &grey, CT_INTERPRETATION_B_W)) return -1;
    if (bands == 1) {
        *out = grey;
        return 0;
    }
    int result = vips.vips_bandjoin_const1(grey, out, 0.0, NULL);
    vips.g_object_unref(grey);
    return result;
}

void ct_vips_set_int(VipsImage *image, const char *name, int value) {
    vips.vips_image_set_int(image, name, value);
}

void ct_vips_set_string(VipsImage *image, const char *name, const char *value) {
    vips.vips_image_set_string(image, name, value);
}

void ct_vips_set_blob(VipsImage *image, const char *name, const void *data, size_t length) {
    vips.vips_image_set_blob_copy(image, name, data, length);
}

const char *ct_vips_error(void) {
    return vips.vips_error_buffer();
}

void ct_vips_clear_error(void) {
    vips.vips_error_clear();
}

void ct_vips_release(VipsImage *image) {
    if (image) vips.g_object_unref(image);
}

void ct_vips_free(void *buffer) {
    vips.g_free(buffer);
}
