# The two entry points of the README: `make run` and `make test` (what .ci/run calls).
BUILD_DIR ?= build
DEVICE ?= 0

.PHONY: run test build clean format

build:
	BUILD_DIR=$(BUILD_DIR) scripts/setup.sh

# Set everything up, build, and run the default suite on GPU 0.
run: build
	$(BUILD_DIR)/gpuprobe all --device $(DEVICE)

# Set everything up, build, and run every test (GPU tests skip when there is no GPU).
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j 2

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp' '*.cu')

clean:
	rm -rf $(BUILD_DIR)
