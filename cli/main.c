/* placeholder: replaced by the real command */
#include <stdio.h>
int main(void) { return 0; }
