// PCRE2, 8-bit code units (UTF-8): the regex library behind Mango's `$regex`, as
// Erlang's `re` (PCRE) is behind CouchDB's, with a match limit against backtracking.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

