// See include/settee_icu.h: ICU's C API behind plain C types.
#include "settee_icu.h"
#include <unicode/ucol.h>
#include <unicode/uversion.h>

void *settee_collator_open(int32_t *status) {
    UErrorCode error = U_ZERO_ERROR;
    UCollator *collator = ucol_open("", &error);
    *status = (int32_t)error;
    if (U_FAILURE(error)) {
        ucol_close(collator);
        return 0;
    }
    return collator;
}

void settee_collator_close(void *collator) { ucol_close((UCollator *)collator); }

int32_t settee_collator_compare_utf8(const void *collator, const char *a, int32_t aLength,
                                     const char *b, int32_t bLength) {
    UErrorCode error = U_ZERO_ERROR;
    return (int32_t)ucol_strcollUTF8((const UCollator *)collator, a, aLength, b, bLength, &error);
}

int32_t settee_collator_sort_key(const void *collator, const uint16_t *text, int32_t length,
                                 uint8_t *out, int32_t capacity) {
    return ucol_getSortKey((const UCollator *)collator, (const UChar *)text, length, out, capacity);
}

void settee_collator_version(const void *collator, uint8_t version[4]) {
    ucol_getVersion((const UCollator *)collator, version);
}

void settee_collator_uca_version(const void *collator, uint8_t version[4]) {
    ucol_getUCAVersion((const UCollator *)collator, version);
}

void settee_icu_version(uint8_t version[4]) { u_getVersion(version); }
