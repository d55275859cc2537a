// Allocation and release of device and host buffers, with errors that say what to do.
#include "gpuprobe/runtime/buffers.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"

namespace gpuprobe::runtime {
namespace {

constexpr std::size_t kPageBytes = 4096;

[[noreturn]] void out_of_device_memory(std::size_t bytes) {
  (void)cudaGetLastError();
  std::size_t free_bytes = 0, total_bytes = 0;
  (void)cudaMemGetInfo(&free_bytes, &total_bytes);
  throw OutOfMemoryError(fmt::format("out of device memory: asked for {}, {} free of {}",
                                     format_bytes(static_cast<double>(bytes)),
                                     format_bytes(static_cast<double>(free_bytes)),
                                     format_bytes(static_cast<double>(total_bytes))));
}

[[noreturn]] void out_of_host_memory(HostMemory kind, std::size_t bytes) {
  (void)cudaGetLastError();
  throw OutOfMemoryError(fmt::format("out of host memory: could not allocate {} of {} host memory",
                                     format_bytes(static_cast<double>(bytes)),
                                     host_memory_name(kind)));
}

}  // namespace

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  const cudaError_t status = cudaMalloc(&ptr_, bytes);
  if (status == cudaErrorMemoryAllocation) out_of_device_memory(bytes);
  GP_CUDA(status);
}

namespace {
std::mutex g_freed_mutex;
std::map<int, std::uint64_t> g_device_bytes_freed;  // device index -> bytes not yet taken

void free_device(void* ptr, std::size_t bytes) noexcept {
  if (!ptr) return;
  int device = -1;
  (void)cudaGetDevice(&device);  // a buffer is freed on the device it was allocated on
  (void)cudaFree(ptr);
  try {
    const std::lock_guard lock(g_freed_mutex);
    g_device_bytes_freed[device] += bytes;
  } catch (...) {  // bookkeeping only: never let it escape a destructor
  }
}
}  // namespace

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  GP_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cudaStreamLegacy));
  GP_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
}

void set_device(void* dst, int value, std::size_t bytes) {
  GP_CUDA(cudaMemsetAsync(dst, value, bytes, cudaStreamLegacy));
  GP_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
}

std::uint64_t take_device_bytes_freed(int device) {
  const std::lock_guard lock(g_freed_mutex);
  return std::exchange(g_device_bytes_freed[device], 0);
}

DeviceBuffer::~DeviceBuffer() {
  free_device(ptr_, bytes_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    free_device(ptr_, bytes_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

const char* host_memory_name(HostMemory kind) noexcept {
  switch (kind) {
    case HostMemory::kPageable:
      return "pageable";
    case HostMemory::kPinned:
      return "pinned";
    case HostMemory::kWriteCombined:
      return "wc";
    case HostMemory::kRegistered:
      return "registered";
    case HostMemory::kMapped:
      return "mapped";
    case HostMemory::kRegisteredMapped:
      return "registered-mapped";
  }
  return "unknown";
}

HostMemory host_memory_of(std::string_view name) {
  for (const HostMemory kind :
       {HostMemory::kPageable, HostMemory::kPinned, HostMemory::kWriteCombined,
        HostMemory::kRegistered, HostMemory::kMapped, HostMemory::kRegisteredMapped}) {
    if (name == host_memory_name(kind)) return kind;
  }
  throw std::logic_error(fmt::format("unknown host memory kind '{}'", name));
}

HostBuffer::HostBuffer(HostMemory kind, std::size_t bytes) : bytes_(bytes), kind_(kind) {
  const std::size_t rounded = (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
  cudaError_t status = cudaSuccess;
  switch (kind) {
    case HostMemory::kPageable:
      ptr_ = std::aligned_alloc(kPageBytes, rounded);
      if (!ptr_) out_of_host_memory(kind, bytes);
      break;
    case HostMemory::kPinned:
      status = cudaHostAlloc(&ptr_, bytes, cudaHostAllocDefault);
      break;
    case HostMemory::kWriteCombined:
      status = cudaHostAlloc(&ptr_, bytes, cudaHostAllocWriteCombined);
      break;
    case HostMemory::kMapped:
      status = cudaHostAlloc(&ptr_, bytes, cudaHostAllocMapped);
      break;
    case HostMemory::kRegistered:
    case HostMemory::kRegisteredMapped:
      ptr_ = std::aligned_alloc(kPageBytes, rounded);
      if (!ptr_) out_of_host_memory(kind, bytes);
      status = cudaHostRegister(
          ptr_, rounded,
          kind == HostMemory::kRegistered ? cudaHostRegisterDefault : cudaHostRegisterMapped);
      if (status != cudaSuccess) {
        std::free(ptr_);
        ptr_ = nullptr;
      }
      break;
  }
  if (status == cudaErrorMemoryAllocation) out_of_host_memory(kind, bytes);
  GP_CUDA(status);
  if (kind == HostMemory::kMapped || kind == HostMemory::kRegisteredMapped) {
    status = cudaHostGetDevicePointer(&device_ptr_, ptr_, 0);
    if (status != cudaSuccess) {
      release();  // the constructor throws, so the destructor will not run
      GP_CUDA(status);
    }
  }
  // First touch: every page is written once now, so no page fault lands in a measurement.
  std::memset(ptr_, 0, bytes);
}

void HostBuffer::release() noexcept {
  if (!ptr_) return;
  switch (kind_) {
    case HostMemory::kPageable:
      std::free(ptr_);
      break;
    case HostMemory::kRegistered:
    case HostMemory::kRegisteredMapped:
      (void)cudaHostUnregister(ptr_);
      std::free(ptr_);
      break;
    default:
      (void)cudaFreeHost(ptr_);
      break;
  }
  ptr_ = nullptr;
  device_ptr_ = nullptr;
}

HostBuffer::~HostBuffer() {
  release();
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)),
      device_ptr_(std::exchange(other.device_ptr_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      kind_(other.kind_) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    release();
    ptr_ = std::exchange(other.ptr_, nullptr);
    device_ptr_ = std::exchange(other.device_ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    kind_ = other.kind_;
  }
  return *this;
}

HostPair::HostPair(HostMemory kind, std::size_t bytes, std::uint32_t seed)
    : in(kind, bytes), out(kind, bytes) {
  fill_pattern_host(in.get(), bytes, seed);
}

}  // namespace gpuprobe::runtime
