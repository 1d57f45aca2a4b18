# sim/systemc/: the optional SystemC engine (C++). Filled in by the SystemC work.
