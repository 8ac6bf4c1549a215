// glibc's allocator tuning (mallopt), which Swift's Glibc module leaves out.
#include <malloc.h>
