#ifndef TOUCHBRIDGE_CUDEV_SHIM_H
#define TOUCHBRIDGE_CUDEV_SHIM_H
#include <libudev.h>
#endif
