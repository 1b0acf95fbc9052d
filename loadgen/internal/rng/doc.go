// Package rng reproduces, bit for bit, the C++ standard library random
// number machinery the official MLPerf LoadGen is built on, as libstdc++
// (GCC 11 and later) implements it: the std::mt19937 engine,
// std::uniform_int_distribution, std::generate_canonical<double, 53>,
// std::uniform_real_distribution<double>, std::exponential_distribution<double>
// and std::shuffle. Given the same seeds, the LoadGen's loadable sample set,
// sample order and Poisson schedule come out identical.
//
// Package rng imports only the standard library; it must never import
// anything else of this module.
package rng
