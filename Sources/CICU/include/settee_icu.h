// ICU's collator (Debian's libicu), the library behind CouchDB's view collation
// (couch_ejson_compare.c), behind functions of plain C types. ICU's own headers stay
// in settee_icu.c: Foundation carries a copy of ICU whose headers define the same C
// types differently, and a module seeing both does not compile. ICU also renames its
// functions by version (`ucol_open` is `ucol_open_72`), which Swift could not import.
#ifndef SETTEE_ICU_H
#define SETTEE_ICU_H
#include <stdint.h>

/// ICU's root collator (`ucol_open("")`), or NULL with ICU's error code in `status`.
void *settee_collator_open(int32_t *status);
void settee_collator_close(void *collator);

/// -1, 0 or 1 as ICU orders the UTF-8 texts `a` and `b` (`ucol_strcollUTF8`).
int32_t settee_collator_compare_utf8(const void *collator, const char *a, int32_t aLength,
                                     const char *b, int32_t bLength);

/// The sort key of UTF-16 `text` (null-terminated, no other zero byte) into `out`:
/// its whole length, which may exceed `capacity` (then call again with more room).
int32_t settee_collator_sort_key(const void *collator, const uint16_t *text, int32_t length,
                                 uint8_t *out, int32_t capacity);

/// The collator's version, the UCA version it implements, and ICU's (4 numbers each).
void settee_collator_version(const void *collator, uint8_t version[4]);
void settee_collator_uca_version(const void *collator, uint8_t version[4]);
void settee_icu_version(uint8_t version[4]);
#endif
