#include "boo/runtime/cuda.h"

#include <cuda_runtime_api.h>

#include <memory>

namespace boo::runtime {

core::Status cuda_status(int error, std::string_view what) {
  if (error == cudaSuccess) return core::Status::ok();
  const auto e = static_cast<cudaError_t>(error);
  return core::unavailable(std::string(what) + " failed: " + cudaGetErrorString(e) + " (" +
                           cudaGetErrorName(e) + ")");
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) cudaFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) {
  other.ptr_ = nullptr;
  other.bytes_ = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = other.ptr_;
    bytes_ = other.bytes_;
    other.ptr_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

core::Expected<DeviceBuffer> DeviceBuffer::allocate(int64_t bytes) {
  DeviceBuffer b;
  if (bytes <= 0) return b;
  BOO_RETURN_IF_ERROR(cuda_status(cudaMalloc(&b.ptr_, static_cast<size_t>(bytes)),
                                  "cudaMalloc(" + std::to_string(bytes) + " bytes)"));
  b.bytes_ = bytes;
  return b;
}

core::Status DeviceBuffer::upload(const void* host, int64_t bytes, int64_t offset) {
  if (offset < 0 || bytes < 0 || offset + bytes > bytes_) {
    return core::internal_error("DeviceBuffer::upload out of bounds");
  }
  return cuda_status(cudaMemcpy(static_cast<char*>(ptr_) + offset, host, static_cast<size_t>(bytes),
                                cudaMemcpyHostToDevice),
                     "cudaMemcpy (host to device)");
}

core::Status DeviceBuffer::download(void* host, int64_t bytes, int64_t offset) const {
  if (offset < 0 || bytes < 0 || offset + bytes > bytes_) {
    return core::internal_error("DeviceBuffer::download out of bounds");
  }
  return cuda_status(cudaMemcpy(host, static_cast<const char*>(ptr_) + offset,
                                static_cast<size_t>(bytes), cudaMemcpyDeviceToHost),
                     "cudaMemcpy (device to host)");
}

core::Status DeviceBuffer::fill_bytes(int value, void* stream) {
  if (ptr_ == nullptr) return core::Status::ok();
  return cuda_status(
      cudaMemsetAsync(ptr_, value, static_cast<size_t>(bytes_), static_cast<cudaStream_t>(stream)),
      "cudaMemsetAsync");
}

core::Expected<void*> Workspace::reserve(int64_t bytes) {
  if (bytes > buffer_.bytes()) {
    buffer_ = DeviceBuffer();
    BOO_ASSIGN_OR_RETURN(buffer_, DeviceBuffer::allocate(bytes));
  }
  return buffer_.data();
}

core::Expected<uint32_t*> Workspace::semaphores(int64_t count) {
  if (semaphores_.bytes() < count * 4) {
    semaphores_ = DeviceBuffer();
    BOO_ASSIGN_OR_RETURN(semaphores_, DeviceBuffer::allocate(count * 4));
    BOO_RETURN_IF_ERROR(semaphores_.fill_bytes(0));
    BOO_RETURN_IF_ERROR(cuda_status(cudaDeviceSynchronize(), "zeroing the semaphores"));
  }
  return static_cast<uint32_t*>(semaphores_.data());
}

Stream::~Stream() {
  if (stream_ != nullptr) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

Stream::Stream(Stream&& other) noexcept : stream_(other.stream_) { other.stream_ = nullptr; }

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (stream_ != nullptr) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
    stream_ = other.stream_;
    other.stream_ = nullptr;
  }
  return *this;
}

core::Expected<Stream> Stream::create() {
  Stream s;
  cudaStream_t st = nullptr;
  BOO_RETURN_IF_ERROR(
      cuda_status(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "cudaStreamCreate"));
  s.stream_ = st;
  return s;
}

core::Status Stream::synchronize() const {
  return cuda_status(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)),
                     "cudaStreamSynchronize");
}

EventTimer::~EventTimer() {
  if (start_ != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  if (stop_ != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
}

core::Expected<std::unique_ptr<EventTimer>> EventTimer::create() {
  auto t = std::make_unique<EventTimer>();
  cudaEvent_t a = nullptr;
  cudaEvent_t b = nullptr;
  BOO_RETURN_IF_ERROR(cuda_status(cudaEventCreate(&a), "cudaEventCreate"));
  t->start_ = a;
  BOO_RETURN_IF_ERROR(cuda_status(cudaEventCreate(&b), "cudaEventCreate"));
  t->stop_ = b;
  return t;
}

core::Status EventTimer::start(void* stream) {
  return cuda_status(
      cudaEventRecord(static_cast<cudaEvent_t>(start_), static_cast<cudaStream_t>(stream)),
      "cudaEventRecord");
}

core::Status EventTimer::stop(void* stream) {
  return cuda_status(
      cudaEventRecord(static_cast<cudaEvent_t>(stop_), static_cast<cudaStream_t>(stream)),
      "cudaEventRecord");
}

core::Expected<double> EventTimer::elapsed_us() const {
  BOO_RETURN_IF_ERROR(
      cuda_status(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_)), "cudaEventSynchronize"));
  float ms = 0.0f;
  BOO_RETURN_IF_ERROR(cuda_status(
      cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_), static_cast<cudaEvent_t>(stop_)),
      "cudaEventElapsedTime"));
  return static_cast<double>(ms) * 1000.0;
}

core::Status set_device(int device) {
  return cuda_status(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
}

core::Status device_synchronize() {
  return cuda_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

}  // namespace boo::runtime
