#include "boo/codegen/conv_codegen.h"
