#ifndef LOOP_CCHAFA_SHIM_H
#define LOOP_CCHAFA_SHIM_H
#include <chafa.h>
#endif
