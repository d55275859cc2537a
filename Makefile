# The two entry points of the README: `make run` and `make test` (what .ci/run calls), and the
# CI's two more: `make sanitize-test` (unit and CLI tests under ASan + UBSan) and
# `make fuzz-regression` (each libFuzzer target a few seconds from its seed corpus, clang).
BUILD_DIR ?= build
SANITIZE_DIR ?= build-sanitize
FUZZ_DIR ?= build-fuzz
DEVICE ?= 0
JOBS ?= $(shell nproc)
# The sanitizer and fuzz builds need kernels for one architecture only (nothing runs on a GPU).
CHECK_ARCH ?= 90
# ccache as the compiler launcher where it is installed (.ci/run installs it).
LAUNCHERS := $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)

.PHONY: run test build clean format sanitize-test fuzz-regression package-test

build:
	BUILD_DIR=$(BUILD_DIR) scripts/setup.sh

# Set everything up, build, and run the default suite on GPU 0.
run: build
	$(BUILD_DIR)/gpuprobe all --device $(DEVICE)

# Set everything up, build, and run every test (GPU tests skip when there is no GPU).
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j 2

# Host code built with AddressSanitizer + UndefinedBehaviorSanitizer (-DGPUPROBE_SANITIZE=ON);
# any report fails its test. protect_shadow_gap=0: the CUDA runtime maps memory where ASan keeps
# its gap (cudaGetDeviceCount would fail otherwise). Left out: the --fast timing checks (a
# sanitized binary is slower by design) and the counter tests that load NVIDIA's profiler host
# library (CounterCatalog, CounterEvaluate): libcupti dlopens libnvperf_host.so with
# RTLD_DEEPBIND, which the ASan runtime refuses; the counter-name tests still run.
# The host C++ at -O1 with line tables (-g1), the sanitizers' usual level, which compiles in less
# time than the release -O3; the CUDA files keep the release flags, so they compile exactly as in
# `make test`'s build and ccache (scripts/ccache-env.sh) hands them over.
sanitize-test:
	scripts/fetch-nvml-header.sh
	. scripts/ccache-env.sh && cmake -S . -B $(SANITIZE_DIR) -DGPUPROBE_SANITIZE=ON \
	  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE='-O1 -g1 -DNDEBUG' \
	  -DCMAKE_CUDA_ARCHITECTURES=$(CHECK_ARCH) \
	  $(LAUNCHERS) >/dev/null
	. scripts/ccache-env.sh && cmake --build $(SANITIZE_DIR) -j $(JOBS) --target gpuprobe \
	  gpuprobe_unit_tests gpuprobe_counters_tests
	cd $(SANITIZE_DIR) && \
	  ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 GPUPROBE_EXPECT_NO_TIMING=1 \
	  ctest --output-on-failure -j 2 -L 'unit|cli' -E '^Counter(Catalog|Evaluate)[.]'

# The libFuzzer targets (-DGPUPROBE_FUZZ=ON, clang) run 5 s each from fuzz/corpus, two at a time
# (each is one process on one core): a regression test. scripts/fuzz.sh runs them for longer. -O1 -g1, as the sanitizer build: libFuzzer's usual
# level, with line tables for the reports, and less compile time than -O2 -g.
fuzz-regression:
	scripts/fetch-nvml-header.sh
	. scripts/ccache-env.sh && CXX=$${CXX:-clang++} cmake -S . -B $(FUZZ_DIR) -DGPUPROBE_FUZZ=ON \
	  -DGPUPROBE_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O1 -g1 -DNDEBUG' \
	  -DCMAKE_CUDA_ARCHITECTURES=$(CHECK_ARCH) $(LAUNCHERS) >/dev/null
	. scripts/ccache-env.sh && cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz_units fuzz_axes \
	  fuzz_expect fuzz_result fuzz_gzip
	cd $(FUZZ_DIR) && ctest --output-on-failure -j 2 -L fuzz

# The .deb as a user installs it (after `make test`'s build): cpack, dpkg -i, the installed binary
# run from outside the tree, dpkg -r (tests/cli/package_test.sh). Installs into the system: root.
package-test: build
	cmake -S . -B $(BUILD_DIR) -DGPUPROBE_PACKAGE_TEST=ON >/dev/null
	. scripts/ccache-env.sh && cmake --build $(BUILD_DIR) -j $(JOBS) --target gpuprobe gpuprobe_shell_docs
	cd $(BUILD_DIR) && ctest --output-on-failure -L package

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp' '*.cu')

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR) $(FUZZ_DIR)
