/* placeholder: replaced by the real benchmark */
int main(void) { return 0; }
