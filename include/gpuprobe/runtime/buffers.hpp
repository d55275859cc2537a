// RAII owners of device and host memory of every kind the probes use.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuprobe::runtime {

// Bytes of device memory DeviceBuffers have freed on a device (index) since the last call.
std::uint64_t take_device_bytes_freed(int device);

// Host bytes to device memory, returning when they are there. A plain cudaMemcpy from pageable
// memory returns once the bytes are staged, before its DMA lands, and the harness's streams are
// non-blocking (not ordered after the legacy stream): a kernel launched next on one of them could
// read the old bytes (it did under a second process's PCIe load, 2026-11-27).
void copy_to_device(void* dst, const void* src, std::size_t bytes);
// Device memory set to a byte value, returning when done (cudaMemset is asynchronous).
void set_device(void* dst, int value, std::size_t bytes);

// Device memory from cudaMalloc. Out-of-memory names the size and the free memory.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// The kinds of host memory a transfer can come from or go to.
enum class HostMemory {
  kPageable,          // malloc'ed and first-touched (every page faulted in before use)
  kPinned,            // cudaHostAlloc, default flags (page-locked)
  kWriteCombined,     // cudaHostAlloc with cudaHostAllocWriteCombined (page-locked, WC)
  kRegistered,        // page-aligned malloc pinned after the fact with cudaHostRegister
  kMapped,            // cudaHostAlloc mapped into the device address space (zero-copy)
  kRegisteredMapped,  // page-aligned malloc registered with cudaHostRegisterMapped (zero-copy)
};

const char* host_memory_name(HostMemory kind) noexcept;  // "pageable", "pinned", "wc", ...
// The kind host_memory_name names; throws std::logic_error on another name.
HostMemory host_memory_of(std::string_view name);

// Host memory of one kind. The bytes are touched (written) once at allocation, so no
// first-touch page fault lands in a measurement.
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(HostMemory kind, std::size_t bytes);
  ~HostBuffer();
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }
  HostMemory kind() const { return kind_; }
  // Device-side address of mapped memory (kMapped, kRegisteredMapped; nullptr otherwise).
  void* device_pointer() const { return device_ptr_; }

 private:
  void release() noexcept;
  void* ptr_ = nullptr;
  void* device_ptr_ = nullptr;
  std::size_t bytes_ = 0;
  HostMemory kind_ = HostMemory::kPageable;
};

// A host memory kind's two buffers of `bytes` for traffic with the device: `in` holds the pattern
// of `seed` (the source of host-to-device traffic, never written), `out` receives device-to-host
// traffic (transfer, overlap, zerocopy).
struct HostPair {
  HostBuffer in;
  HostBuffer out;
  HostPair(HostMemory kind, std::size_t bytes, std::uint32_t seed);
};

}  // namespace gpuprobe::runtime
