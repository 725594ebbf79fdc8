// File: runtime/node/data_server.h
//
// DataServer: a node's data port (docs/runtime.md, "Bytes between nodes").
// A TCP listener on the address the node reaches its scheduler from (or
// --data-listen), on a port the system picks, reported to the scheduler at
// registration. A reader (another node's task, or this node's own) connects,
// sends one DataRequest (data_request.h) and gets the bytes it asked for:
// synthetic bytes, no file's content, so the port can leak nothing. It
// serves a request only with a ticket the scheduler issued for exactly that
// transfer (data_tickets.h), so it is no open amplifier and no bearer token
// ever crosses it.
//
// Bounds: at most kMaxConnections at once (one more is closed at once), a
// request must arrive whole within kRequestTimeout, and a connection that
// takes no bytes for kStallTimeout is closed. A bad request is closed with
// one line in the log and changes nothing; each served transfer logs one
// line with its bytes (a transfer the reader cut short, say a killed
// attempt's, logs what it took).
//
// Threading: Start's listener thread accepts; each connection has its own
// thread. Allow and the counters are thread-safe. The destructor closes
// every connection and joins the threads.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "runtime/node/data_tickets.h"

namespace weft::runtime {

class DataServer {
 public:
  static constexpr size_t kMaxConnections = 32;
  static constexpr std::chrono::milliseconds kRequestTimeout{5000};
  static constexpr std::chrono::milliseconds kTicketWait{3000};
  static constexpr std::chrono::seconds kStallTimeout{30};

  // Start listens on `host` (a numeric IPv4 or IPv6 address) at a port the
  // system picks. An error when it cannot.
  static absl::StatusOr<std::unique_ptr<DataServer>> Start(const std::string& host);
  ~DataServer();
  DataServer(const DataServer&) = delete;
  DataServer& operator=(const DataServer&) = delete;

  // address: HOST:PORT (IPv6 as [HOST]:PORT), what readers connect to.
  const std::string& address() const { return address_; }
  // Allow: a ticket the scheduler issued for a transfer this node serves.
  void Allow(uint64_t transfer, const DataTicketBytes& ticket, uint64_t bytes, std::chrono::milliseconds ttl);

  uint64_t bytes_served() const { return bytes_served_; }
  uint64_t refused() const { return refused_; }
  size_t tickets_held() const { return tickets_.size(); }

 private:
  DataServer(int listener, int wake_read, int wake_write, std::string address);
  void Accept();
  void Serve(uint64_t number, int fd, std::string peer);
  bool ReadRequest(int fd, DataRequestWire& wire);

  const int listener_;
  const int wake_read_, wake_write_;  // a pipe that wakes the listener thread to stop
  const std::string address_;
  DataTickets tickets_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> bytes_served_{0};
  std::atomic<uint64_t> refused_{0};
  void JoinFinished();  // the listener thread joins the connection threads that ended

  std::mutex mu_;
  absl::flat_hash_set<int> open_;  // connections being served (shut down at stop)
  absl::flat_hash_map<uint64_t, std::thread> threads_;  // connection threads by number
  std::vector<uint64_t> finished_;  // connection threads that ended, to join
  uint64_t next_thread_ = 0;
  std::thread accept_thread_;
};

}  // namespace weft::runtime
