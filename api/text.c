/* text.c - stsl_field_width (include/stickslip.h): the library's tables
 * and the CLI's pad by displayed columns with one rule (solver/text_width). */
#include "include/stickslip.h"
#include "solver/text_width.h"

int stsl_field_width(const char *text, int columns)
{
    return stsl_text_field(text, columns);
}
