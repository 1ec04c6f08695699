/* text_width.c - printf field widths in displayed columns (text_width.h). */
#include "solver/text_width.h"

int stsl_text_field(const char *s, int columns)
{
    int extra = 0;
    for (; *s; s++)
        extra += ((unsigned char)*s & 0xC0) == 0x80; /* a UTF-8 continuation byte */
    return columns + extra;
}
