#include "cuttle.h"
int main() { return 0; }
