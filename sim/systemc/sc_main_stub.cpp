/*
 * sim/systemc/sc_main_stub.cpp - a weak sc_main() for programs that use
 * the SystemC engine from a plain C main().
 *
 * libsystemc.so refers to sc_main() (from sc_elab_and_sim(), which our
 * programs never call), so every program that links it needs one. Our
 * programs build modules directly and call sc_start(), which SystemC 2.3
 * allows without sc_main() ever running. The definition is weak: a
 * SystemC program that has its own sc_main() keeps it. engine_systemc.cpp
 * takes this function's address, so linking the engine out of the
 * convenience archive always brings this object along.
 */
#include <config.h>

#include <systemc>

extern "C" int sc_main(int, char *[]) __attribute__((weak));

extern "C" int sc_main(int, char *[])
{
    return 0;
}
