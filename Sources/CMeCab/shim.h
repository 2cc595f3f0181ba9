#ifndef LOOPLEARN_CMECAB_SHIM_H
#define LOOPLEARN_CMECAB_SHIM_H
#include <mecab.h>
#endif
