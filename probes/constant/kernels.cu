// The `constant` kernels: table fill, __constant__ copy, throughput lookups (four paths, three
// widths) and their check, chase chain, warm read and the timed one-thread chase.
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device_timers.cuh"
#include "gpuprobe/runtime/pattern.hpp"
#include "kernels.hpp"

namespace gpuprobe::constant {
namespace {

using models::kConstantTableMax;

__constant__ uint4 c_table[kConstantTableMax / sizeof(uint4)];

constexpr int kFillThreads = 256;

__device__ __forceinline__ std::uint32_t fold(std::uint32_t v) {
  return v;
}
__device__ __forceinline__ std::uint32_t fold(uint2 v) {
  return v.x + 3u * v.y;
}
__device__ __forceinline__ std::uint32_t fold(uint4 v) {
  return v.x + 3u * v.y + 5u * v.z + 7u * v.w;
}

// Element e of the table through each path (T: uint32, uint2, uint4).
template <class T>
__device__ __forceinline__ T ld_global(const T* p);
template <>
__device__ __forceinline__ std::uint32_t ld_global(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
template <>
__device__ __forceinline__ uint2 ld_global(const uint2* p) {
  uint2 v;
  asm volatile("ld.global.ca.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
  return v;
}
template <>
__device__ __forceinline__ uint4 ld_global(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

template <LookupPath P, class T>
__device__ __forceinline__ T load(const T* table, cudaTextureObject_t tex, std::uint32_t e) {
  if constexpr (P == LookupPath::kConstant)
    return reinterpret_cast<const T*>(c_table)[e];
  else if constexpr (P == LookupPath::kReadOnly)
    return __ldg(table + e);
  else if constexpr (P == LookupPath::kTexture)
    return tex1Dfetch<T>(tex, static_cast<int>(e));
  else
    return ld_global(table + e);
}

// What the table holds at element e (the check's source).
template <class T>
__device__ __forceinline__ std::uint32_t expected(std::uint32_t e) {
  constexpr std::uint64_t kWords = sizeof(T) / 4;
  const std::uint64_t w = static_cast<std::uint64_t>(e) * kWords;
  if constexpr (kWords == 1)
    return models::table_word(w);
  else if constexpr (kWords == 2)
    return fold(uint2{models::table_word(w), models::table_word(w + 1)});
  else
    return fold(uint4{models::table_word(w), models::table_word(w + 1), models::table_word(w + 2),
                      models::table_word(w + 3)});
}

// The lookups of one thread: a per-warp generator picks the base, the lane's group adds its offset
// (lane_element(base) == (base + lane_element(0)) & mask for a power-of-two table).
template <class Get>
__device__ __forceinline__ std::uint32_t lookups(const LookupLaunch& l, Get get) {
  const std::uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t mask = l.elements - 1;
  const auto off =
      static_cast<std::uint32_t>(models::lane_element(0, threadIdx.x & 31, l.distinct, l.elements));
  std::uint32_t x = (tid / 32) * 0x9E3779B9u + 1u;
  std::uint32_t acc = 0;
#pragma unroll 4
  for (std::uint32_t i = 0; i < l.iters; ++i) {
    x = x * 1664525u + 1013904223u;
    acc += get(((x ^ (x >> 13)) + off) & mask);
  }
  return acc;
}

template <LookupPath P, class T>
__global__ void lookup_kernel(LookupLaunch l) {
  const auto* table = static_cast<const T*>(l.table);
  const std::uint32_t sum =
      lookups(l, [&](std::uint32_t e) { return fold(load<P, T>(table, l.tex, e)); });
  l.out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <class T>
__global__ void check_kernel(LookupLaunch l, runtime::MismatchTally tally) {
  const std::uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t sum = lookups(l, [](std::uint32_t e) { return expected<T>(e); });
  runtime::ThreadMismatches t;
  t.note(l.out[tid] != sum, tid);
  tally.add(t);
}

__global__ void fill_kernel(std::uint32_t* table, std::uint64_t words) {
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t w = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       w < words; w += threads)
    table[w] = models::table_word(w);
}

__global__ void build_chain_kernel(char* table, const std::uint32_t* order, std::uint32_t n,
                                   bool pointers) {
  const std::uint32_t threads = gridDim.x * blockDim.x;
  for (std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += threads) {
    char* here = table + order[k] * models::kChaseStride;
    const std::uint32_t next = order[k + 1 == n ? 0 : k + 1] * models::kChaseStride;
    if (pointers)
      *reinterpret_cast<std::uint64_t*>(here) = reinterpret_cast<std::uint64_t>(table + next);
    else
      *reinterpret_cast<std::uint32_t*>(here) = next;
  }
}

__global__ void warm_kernel(const std::uint32_t* table, std::uint64_t words, std::uint32_t* sink) {
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint32_t acc = 0;
  for (std::uint64_t w = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       w < words; w += threads)
    acc ^= ld_global(table + w);
  if (acc == 0x7FFFFFFFu) *sink = acc;  // keeps the loads
}

using runtime::cycles64;
using runtime::global_ns;

// The next step of the chase through each path: an address (global, read-only: the load's result
// is the next load's address) or a byte offset (constant: LDC with a register offset; texture:
// tex1Dfetch of texel offset / 4).
template <LookupPath P>
__device__ __forceinline__ std::uint64_t next(cudaTextureObject_t tex, std::uint64_t at) {
  if constexpr (P == LookupPath::kConstant) {
    return *reinterpret_cast<const std::uint32_t*>(reinterpret_cast<const char*>(c_table) + at);
  } else if constexpr (P == LookupPath::kTexture) {
    return tex1Dfetch<std::uint32_t>(tex, static_cast<int>(at >> 2));
  } else if constexpr (P == LookupPath::kReadOnly) {
    return __ldg(reinterpret_cast<const unsigned long long*>(at));
  } else {
    std::uint64_t v;
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(at) : "memory");
    return v;
  }
}

__device__ __forceinline__ unsigned int sm_id() {
  unsigned int id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

template <LookupPath P>
__global__ void chase_kernel(ChaseLaunch c) {
  if (sm_id() != kChaseSm) return;  // one block per SM: only the one on kChaseSm chases
  const auto base = chases_pointers(P) ? reinterpret_cast<std::uint64_t>(c.table) : 0;
  const std::uint32_t slot = atomicAdd(c.count, 1u);
  const std::uint64_t from = static_cast<std::uint64_t>(slot) * (c.warm + c.steps) % c.n;
  std::uint64_t at = base + c.order[from] * models::kChaseStride;
  for (std::uint32_t i = 0; i < c.warm; ++i)
    at = next<P>(c.tex, at);
  const std::uint64_t g0 = global_ns();
  const std::uint64_t c0 = cycles64();
  for (std::uint32_t i = 0; i < c.steps; ++i)
    at = next<P>(c.tex, at);
  const std::uint64_t c1 = cycles64();
  const std::uint64_t g1 = global_ns();
  if (slot < c.capacity) c.slots[slot] = ChaseSlot{c1 - c0, g1 - g0, at - base};
}

template <LookupPath P>
void lookup_for_width(const LookupLaunch& l, cudaStream_t stream) {
  if (l.width == 4)
    lookup_kernel<P, std::uint32_t><<<l.blocks, kLookupThreads, 0, stream>>>(l);
  else if (l.width == 8)
    lookup_kernel<P, uint2><<<l.blocks, kLookupThreads, 0, stream>>>(l);
  else
    lookup_kernel<P, uint4><<<l.blocks, kLookupThreads, 0, stream>>>(l);
}

int fill_blocks(std::uint64_t words) {
  const std::uint64_t want = (words + kFillThreads - 1) / kFillThreads;
  return static_cast<int>(want < 8192 ? want : 8192);
}

}  // namespace

Texture::Texture(const void* table, std::uint64_t bytes, int width) {
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = const_cast<void*>(table);
  const int y = width >= 8 ? 32 : 0, zw = width >= 16 ? 32 : 0;
  res.res.linear.desc = cudaCreateChannelDesc(32, y, zw, zw, cudaChannelFormatKindUnsigned);
  res.res.linear.sizeInBytes = bytes;
  cudaTextureDesc tex{};
  tex.readMode = cudaReadModeElementType;
  GP_CUDA(cudaCreateTextureObject(&object_, &res, &tex, nullptr));
}

Texture::~Texture() {
  (void)cudaDestroyTextureObject(object_);  // as buffers free: a destructor never throws
}

SlotRing::SlotRing(std::uint32_t capacity) : capacity_(capacity) {
  const std::size_t bytes = capacity * sizeof(ChaseSlot) + sizeof(std::uint32_t);
  GP_CUDA(cudaMalloc(&memory_, bytes));
  // Zeroed before any launch reads the count (runtime::set_device's reason), by hand so that a
  // failure frees the memory first.
  cudaError_t e = cudaMemsetAsync(memory_, 0, bytes, cudaStreamLegacy);
  if (e == cudaSuccess) e = cudaStreamSynchronize(cudaStreamLegacy);
  if (e != cudaSuccess) {
    (void)cudaFree(memory_);  // the destructor of a half-made object does not run
    GP_CUDA(e);
  }
}

SlotRing::~SlotRing() {
  (void)cudaFree(memory_);  // as buffers free: a destructor never throws
}

void SlotRing::into(ChaseLaunch& c) const {
  c.slots = static_cast<ChaseSlot*>(memory_);
  c.count = reinterpret_cast<std::uint32_t*>(c.slots + capacity_);
  c.capacity = capacity_;
}

std::vector<ChaseSlot> SlotRing::read() const {
  ChaseLaunch c;
  into(c);
  std::uint32_t count = 0;
  GP_CUDA(cudaMemcpy(&count, c.count, sizeof count, cudaMemcpyDeviceToHost));
  std::vector<ChaseSlot> slots(count < capacity_ ? count : capacity_);
  GP_CUDA(
      cudaMemcpy(slots.data(), memory_, slots.size() * sizeof(ChaseSlot), cudaMemcpyDeviceToHost));
  return slots;
}

void launch_fill(void* table, std::uint64_t bytes, cudaStream_t stream) {
  fill_kernel<<<fill_blocks(bytes / 4), kFillThreads, 0, stream>>>(
      static_cast<std::uint32_t*>(table), bytes / 4);
  GP_CHECK_LAUNCH("constant table fill");
}

void copy_to_constant(const void* src, std::uint64_t bytes, cudaStream_t stream) {
  GP_CUDA(cudaMemcpyToSymbolAsync(c_table, src, bytes, 0, cudaMemcpyDeviceToDevice, stream));
}

void launch_lookup(const LookupLaunch& l, cudaStream_t stream) {
  switch (l.path) {
    case LookupPath::kConstant:
      lookup_for_width<LookupPath::kConstant>(l, stream);
      break;
    case LookupPath::kReadOnly:
      lookup_for_width<LookupPath::kReadOnly>(l, stream);
      break;
    case LookupPath::kTexture:
      lookup_for_width<LookupPath::kTexture>(l, stream);
      break;
    case LookupPath::kGlobal:
      lookup_for_width<LookupPath::kGlobal>(l, stream);
      break;
  }
  GP_CHECK_LAUNCH("constant lookup");
}

Mismatches check_lookup(const LookupLaunch& l, cudaStream_t stream) {
  const runtime::MismatchCounter counter;
  if (l.width == 4)
    check_kernel<std::uint32_t><<<l.blocks, kLookupThreads, 0, stream>>>(l, counter.tally());
  else if (l.width == 8)
    check_kernel<uint2><<<l.blocks, kLookupThreads, 0, stream>>>(l, counter.tally());
  else
    check_kernel<uint4><<<l.blocks, kLookupThreads, 0, stream>>>(l, counter.tally());
  GP_CHECK_LAUNCH("constant lookup check");
  return counter.read(stream);
}

void launch_build_chain(void* table, const std::uint32_t* order, std::uint32_t n, bool pointers,
                        cudaStream_t stream) {
  build_chain_kernel<<<fill_blocks(n), kFillThreads, 0, stream>>>(static_cast<char*>(table), order,
                                                                  n, pointers);
  GP_CHECK_LAUNCH("constant chase chain");
}

void launch_warm(const void* table, std::uint64_t bytes, std::uint32_t* sink, cudaStream_t stream) {
  warm_kernel<<<fill_blocks(bytes / 4), kFillThreads, 0, stream>>>(
      static_cast<const std::uint32_t*>(table), bytes / 4, sink);
  GP_CHECK_LAUNCH("constant warm read");
}

void launch_chase(const ChaseLaunch& c, cudaStream_t stream) {
  switch (c.path) {
    case LookupPath::kConstant:
      chase_kernel<LookupPath::kConstant><<<c.sms, 1, 0, stream>>>(c);
      break;
    case LookupPath::kReadOnly:
      chase_kernel<LookupPath::kReadOnly><<<c.sms, 1, 0, stream>>>(c);
      break;
    case LookupPath::kTexture:
      chase_kernel<LookupPath::kTexture><<<c.sms, 1, 0, stream>>>(c);
      break;
    case LookupPath::kGlobal:
      chase_kernel<LookupPath::kGlobal><<<c.sms, 1, 0, stream>>>(c);
      break;
  }
  GP_CHECK_LAUNCH("constant chase");
}

}  // namespace gpuprobe::constant
