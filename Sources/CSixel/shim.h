#ifndef CSIXEL_SHIM_H
#define CSIXEL_SHIM_H
/* libsixel: decoding image files (PNG, JPEG, GIF, BMP) into pixels, resizing, and
   encoding pixels as sixel graphics for the terminals that draw them. */
#include <sixel.h>

/* SIXEL_FAILED is a macro over the status bits, which Swift does not import. */
static inline int sb_sixel_failed(SIXELSTATUS status) { return SIXEL_FAILED(status); }

#endif
