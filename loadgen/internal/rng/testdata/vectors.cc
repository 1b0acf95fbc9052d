// Prints the libstdc++ random vectors that loadgen/internal/rng's tests
// check: the engine, distributions and shuffle the official LoadGen uses.
//   g++ -std=c++17 -O2 -o vectors vectors.cc && ./vectors
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>

int main() {
  std::mt19937 def;
  std::printf("mt19937 default seed, 1st output: %u\n", static_cast<unsigned>(def()));
  def.discard(9998);
  std::printf("mt19937 default seed, 10000th output: %u\n", static_cast<unsigned>(def()));

  std::mt19937 u(42);
  std::uniform_int_distribution<> dist(0, 1023);
  std::printf("mt19937(42), uniform_int_distribution<>(0, 1023):");
  for (int i = 0; i < 8; i++) std::printf(" %d", dist(u));
  std::printf("\n");

  std::mt19937 e(42);
  std::exponential_distribution<> gap(100.0);
  std::printf("mt19937(42), exponential_distribution<>(100.0) in ns, truncated:");
  for (int i = 0; i < 4; i++) std::printf(" %lld", static_cast<long long>(gap(e) * 1e9));
  std::printf("\n");

  std::mt19937 s(42);
  int x[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::shuffle(x, x + 10, s);
  std::printf("mt19937(42), shuffle of 0..9:");
  for (int v : x) std::printf(" %d", v);
  std::printf("\n");
  return 0;
}
