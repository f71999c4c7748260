#ifndef CPCRE2_SHIM_H
#define CPCRE2_SHIM_H
/* PCRE2 for UTF-8 text: the header picks the 8-bit API from this definition. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* PCRE2_ZERO_TERMINATED and PCRE2_UNSET are ~(PCRE2_SIZE)0, which Swift does not import. */
static inline PCRE2_SIZE sb_pcre2_unset(void) { return PCRE2_UNSET; }

#endif
