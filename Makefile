# The two entry points of the README: `make run` and `make test` (what .ci/run calls), and the
# CI's two more: `make sanitize-test` (unit and CLI tests under ASan + UBSan) and
# `make fuzz-regression` (each libFuzzer target a few seconds from its seed corpus, clang).
BUILD_DIR ?= build
# The sanitizer tests and the fuzz targets share one build (check-build below).
CHECK_DIR ?= build-check
FUZZ_TARGETS := fuzz_units fuzz_axes fuzz_expect fuzz_result fuzz_gzip
DEVICE ?= 0
JOBS ?= $(shell nproc)
# The sanitizer and fuzz builds need kernels for one architecture only (nothing runs on a GPU).
CHECK_ARCH ?= 90
# ccache as the compiler launcher where it is installed (.ci/run installs it).
LAUNCHERS := $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)

.PHONY: run test build clean format check-build sanitize-test fuzz-regression package-test

build:
	BUILD_DIR=$(BUILD_DIR) scripts/setup.sh

# Set everything up, build, and run the default suite on GPU 0.
run: build
	$(BUILD_DIR)/gpuprobe all --device $(DEVICE)

# Set everything up, build, and run every test (GPU tests skip when there is no GPU).
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j 2

# One build serves both checks (CHECK_DIR): the host code with AddressSanitizer +
# UndefinedBehaviorSanitizer (-DGPUPROBE_SANITIZE=ON) and, where clang++ is installed, built with
# clang and libFuzzer's coverage on what the fuzz targets reach (-DGPUPROBE_FUZZ=ON:
# -fsanitize=fuzzer-no-link on gpuprobe_core and the targets; only the targets link libFuzzer), so
# the host code is compiled once for both; without clang, g++ and no fuzz targets. Any sanitizer
# report fails its test. With clang the libraries share a precompiled header (GPUPROBE_PCH).
# The host C++ at -O1 with line tables (-g1), the sanitizers' and libFuzzer's usual level, which
# compiles in less time than the release -O3; the CUDA files keep the release flags (and nvcc's
# host compiler), so they compile exactly as in `make test`'s build and ccache
# (scripts/ccache-env.sh) hands them over.
CHECK_CXX ?= $(if $(shell command -v clang++),clang++,g++)
CHECK_FUZZ = $(if $(filter clang++%,$(notdir $(CHECK_CXX))),ON,OFF)
check-build:
	scripts/fetch-nvml-header.sh
	. scripts/ccache-env.sh && CXX=$(CHECK_CXX) cmake -S . -B $(CHECK_DIR) -DGPUPROBE_SANITIZE=ON \
	  -DGPUPROBE_FUZZ=$(CHECK_FUZZ) -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_CXX_FLAGS_RELEASE='-O1 -g1 -DNDEBUG' -DCMAKE_CUDA_ARCHITECTURES=$(CHECK_ARCH) \
	  $(LAUNCHERS) >/dev/null
	. scripts/ccache-env.sh && cmake --build $(CHECK_DIR) -j $(JOBS) --target gpuprobe \
	  gpuprobe_unit_tests gpuprobe_counters_tests $(if $(filter ON,$(CHECK_FUZZ)),$(FUZZ_TARGETS))

# The unit and CLI tests against the sanitized build. protect_shadow_gap=0: the CUDA runtime maps
# memory where ASan keeps its gap (cudaGetDeviceCount would fail otherwise). Each gtest binary runs
# as a few processes (gtest's shards, tests/CMakeLists.txt), not one per test. Left out: the
# --fast timing checks (a sanitized binary is slower by design) and the counter tests that load
# NVIDIA's profiler host library (CounterCatalog, CounterEvaluate; tests/CMakeLists.txt): libcupti
# dlopens libnvperf_host.so with RTLD_DEEPBIND, which the ASan runtime refuses; the counter-name
# tests still run.
sanitize-test: check-build
	cd $(CHECK_DIR) && \
	  ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 GPUPROBE_EXPECT_NO_TIMING=1 \
	  ctest --output-on-failure -j 2 -L 'unit|cli'

# The libFuzzer targets (fuzz/, clang) run 5 s each from fuzz/corpus, two at a time (each is one
# process on one core): a regression test. scripts/fuzz.sh runs them for longer. They come from
# the check build above (after `make sanitize-test` nothing is left to compile).
fuzz-regression: CHECK_CXX = $(if $(shell command -v clang++),clang++,$(error fuzz-regression needs clang++))
fuzz-regression: check-build
	cd $(CHECK_DIR) && ctest --output-on-failure -j 2 -L fuzz

# The .deb as a user installs it (after `make test`'s build): cpack, dpkg -i, the installed binary
# run from outside the tree, dpkg -r (tests/cli/package_test.sh). Installs into the system: root.
package-test: build
	cmake -S . -B $(BUILD_DIR) -DGPUPROBE_PACKAGE_TEST=ON >/dev/null
	. scripts/ccache-env.sh && cmake --build $(BUILD_DIR) -j $(JOBS) --target gpuprobe gpuprobe_shell_docs
	cd $(BUILD_DIR) && ctest --output-on-failure -L package

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp' '*.cu')

clean:
	rm -rf $(BUILD_DIR) $(CHECK_DIR)
