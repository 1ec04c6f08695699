/* text_width.h - printf field widths counted in displayed columns.  printf
 * pads "%16s" by bytes, and a unit such as "N·m" or "kg·m²" has more bytes
 * than it takes columns (UTF-8: "·" and "²" are two bytes each), so a
 * table's header would end a column early for every such character.
 * Every character the program writes is single-width, so a column is a
 * UTF-8 code point. */
#ifndef STSL_SOLVER_TEXT_WIDTH_H
#define STSL_SOLVER_TEXT_WIDTH_H

/* The field width to give printf ("%*s", "%-*s") so that s fills `columns`
 * displayed columns: columns plus the bytes of s that start no code point. */
int stsl_text_field(const char *s, int columns);

#endif
