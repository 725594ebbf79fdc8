// File: runtime/node/scheduler_link.h
//
// SchedulerLink: a node daemon's connection to the scheduler at one address.
// A node serves every scheduler daemon it is given (`--scheduler a,b`): one
// daemon, reachable at one of several addresses (failover), or several
// daemons that are replicas of one decentralized scheduler (replica_ids.h).
// Each address gets a link whose thread, over and over until stopped:
//   1. asks the daemon there which replica it is (a Status call), and waits
//      while another link already serves that replica (two addresses of one
//      daemon must not both register the node: each would evict the other);
//   2. opens the node stream, registers, and hands the Registered reply,
//      then every message read, then the stream's end to the node daemon's
//      main thread through the shared LinkInbox;
//   3. backs off before trying again.
// The main thread writes to the stream (Write); the link thread only reads.
//
// Thread-safe: Write and Close may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "grpcpp/grpcpp.h"
#include "model/resources.h"
#include "runtime/tls.h"
#include "weft/v1/weft.grpc.pb.h"

namespace weft::runtime {

// LinkEvent: what a link hands to the main thread, in the order it happened.
struct LinkEvent {
  enum class Kind : uint8_t { kUp, kMessage, kDown };
  Kind kind = Kind::kMessage;
  size_t link = 0;
  v1::Registered registered;     // kUp
  v1::SchedulerMessage message;  // kMessage
};

// LinkInbox: every link's events in one queue, with an eventfd to poll on.
class LinkInbox {
 public:
  LinkInbox();
  ~LinkInbox();
  LinkInbox(const LinkInbox&) = delete;
  LinkInbox& operator=(const LinkInbox&) = delete;

  void Push(LinkEvent event);
  std::deque<LinkEvent> Take();
  int fd() const { return fd_; }

 private:
  int fd_;
  std::mutex mu_;
  std::deque<LinkEvent> queue_;
};

// ReplicaClaims: which link serves which scheduler replica.
class ReplicaClaims {
 public:
  bool Claim(uint32_t replica, size_t link);
  void Release(uint32_t replica, size_t link);

 private:
  std::mutex mu_;
  absl::flat_hash_map<uint32_t, size_t> owner_;
};

struct LinkIdentity {
  std::string node_name;
  Resources capacity;
  std::string token;
  uint32_t rack = 0;
  TlsConfig tls;
  std::string data_address;  // the node's data port (data_server.h), HOST:PORT; empty: none
};

class SchedulerLink {
 public:
  SchedulerLink(size_t index, std::string address, LinkIdentity identity, LinkInbox& inbox, ReplicaClaims& claims);
  ~SchedulerLink();  // stops the thread and ends the stream
  SchedulerLink(const SchedulerLink&) = delete;
  SchedulerLink& operator=(const SchedulerLink&) = delete;

  const std::string& address() const { return address_; }
  // Write sends on the current stream; false when there is none or it broke
  // (its end then reaches the inbox as kDown).
  bool Write(const v1::NodeMessage& message);
  // Close ends the current stream; the link registers again after a pause
  // (at least `pause`: a daemon the node refused is not retried at once).
  void Close(std::chrono::milliseconds pause = std::chrono::milliseconds(0));

 private:
  void Run();
  // Session: one attempt: ask, claim, connect, register, read until the end.
  // Returns true if it registered (the caller then resets its backoff).
  bool Session();
  void Pause(std::chrono::milliseconds how_long);
  // Unreachable logs why the scheduler cannot be reached: at the first
  // failure, then at most every 10 s while it lasts (a failed TLS handshake
  // would otherwise retry in silence).
  void Unreachable(const grpc::Status& status);
  // MakeChannel: a channel to address_ with the link's reconnect settings.
  std::shared_ptr<grpc::Channel> MakeChannel() const;

  const size_t index_;
  const std::string address_;
  const LinkIdentity identity_;
  LinkInbox& inbox_;
  ReplicaClaims& claims_;
  std::shared_ptr<grpc::Channel> channel_;  // the link thread's (made again after a failed session)

  std::mutex context_mu_;  // guards context_ and stopping_
  std::condition_variable wake_;
  std::shared_ptr<grpc::ClientContext> context_;
  bool stopping_ = false;
  std::chrono::milliseconds next_pause_{0};  // set by Close

  std::mutex write_mu_;  // serializes writes with the stream's end
  grpc::ClientReaderWriter<v1::NodeMessage, v1::SchedulerMessage>* stream_ = nullptr;

  // The link thread's only: when Unreachable last logged (zero: not since the last success).
  std::chrono::steady_clock::time_point last_unreachable_{};
  std::thread thread_;
};

}  // namespace weft::runtime
