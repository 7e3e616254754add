// Checked CUDA runtime calls and RAII owners of device memory, streams and events. Every CUDA
// error becomes a Status naming the call; nothing aborts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "boo/core/status.h"

namespace boo::runtime {

// A Status for a CUDA runtime error code (ok for cudaSuccess); `what` names the call.
core::Status cuda_status(int error, std::string_view what);

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  static core::Expected<DeviceBuffer> allocate(int64_t bytes);
  void* data() const { return ptr_; }
  int64_t bytes() const { return bytes_; }
  core::Status upload(const void* host, int64_t bytes, int64_t offset = 0);
  core::Status download(void* host, int64_t bytes, int64_t offset = 0) const;
  // Fills every byte with `value` (0xFF: NaN in fp32, fp16 and bf16 — the poison of §8).
  core::Status fill_bytes(int value, void* stream = nullptr);

 private:
  void* ptr_ = nullptr;
  int64_t bytes_ = 0;
};

// Grows on demand, keeps its memory; for kernel workspaces.
class Workspace {
 public:
  core::Expected<void*> reserve(int64_t bytes);
  int64_t bytes() const { return buffer_.bytes(); }
  // `count` 32-bit counters, zeroed when first allocated; the kernels that use them leave them
  // zero (codegen/abi.h, BOO_SEMAPHORE_COUNT).
  core::Expected<uint32_t*> semaphores(int64_t count);

 private:
  DeviceBuffer buffer_;
  DeviceBuffer semaphores_;
};

class Stream {
 public:
  Stream() = default;
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;

  static core::Expected<Stream> create();
  void* get() const { return stream_; }  // a cudaStream_t
  core::Status synchronize() const;

 private:
  void* stream_ = nullptr;
};

// A pair of CUDA events timing work on a stream.
class EventTimer {
 public:
  EventTimer() = default;
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  static core::Expected<std::unique_ptr<EventTimer>> create();
  core::Status start(void* stream);
  core::Status stop(void* stream);
  // Waits for the stop event; microseconds between the two.
  core::Expected<double> elapsed_us() const;

 private:
  void* start_ = nullptr;
  void* stop_ = nullptr;
};

core::Status set_device(int device);
core::Status device_synchronize();

}  // namespace boo::runtime
