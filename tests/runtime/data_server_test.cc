// A node's data port (runtime/node/data_server.h): it serves a transfer's
// bytes once to a reader with the transfer's ticket, refuses anything else
// without changing state, and stops a transfer whose reader went away; the
// built-in net work reads through it.
#include "runtime/node/data_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "gtest/gtest.h"
#include "runtime/node/builtin_work.h"
#include "runtime/node/data_address.h"
#include "runtime/node/data_request.h"
#include "runtime/node/data_tickets.h"

namespace weft::runtime {
namespace {

using namespace std::chrono_literals;

DataTicketBytes TicketOf(unsigned char seed) {
  DataTicketBytes t;
  for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<unsigned char>(seed + i);
  return t;
}

// Connect: a connection to the server's data port.
int Connect(const DataServer& server) {
  sockaddr_storage addr{};
  socklen_t len = 0;
  EXPECT_TRUE(ParseDataAddress(server.address(), addr, len)) << server.address();
  const int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), len), 0);
  return fd;
}

// Fetch: sends `wire` and reads until the server closes; the bytes received.
uint64_t Fetch(const DataServer& server, const DataRequestWire& wire) {
  const int fd = Connect(server);
  EXPECT_EQ(send(fd, wire.data(), wire.size(), MSG_NOSIGNAL), static_cast<ssize_t>(wire.size()));
  std::vector<char> buf(1 << 20);
  uint64_t got = 0;
  for (ssize_t n; (n = read(fd, buf.data(), buf.size())) > 0;) got += static_cast<uint64_t>(n);
  close(fd);
  return got;
}

uint64_t Fetch(const DataServer& server, uint64_t transfer, const DataTicketBytes& ticket, uint64_t bytes) {
  return Fetch(server, EncodeDataRequest(DataRequest{.transfer = transfer, .ticket = ticket, .bytes = bytes}));
}

std::unique_ptr<DataServer> Loopback() {
  absl::StatusOr<std::unique_ptr<DataServer>> s = DataServer::Start("127.0.0.1");
  EXPECT_TRUE(s.ok()) << s.status();
  return std::move(*s);
}

TEST(DataServerTest, ServesATransfersBytesOnceToItsTicket) {
  auto server = Loopback();
  server->Allow(7, TicketOf(1), 3'000'000, 10s);
  EXPECT_EQ(Fetch(*server, 7, TicketOf(1), 3'000'000), 3'000'000u);
  EXPECT_EQ(server->bytes_served(), 3'000'000u);
  // Single use: the same request again gets nothing.
  EXPECT_EQ(Fetch(*server, 7, TicketOf(1), 3'000'000), 0u);
  EXPECT_EQ(server->bytes_served(), 3'000'000u);
  EXPECT_EQ(server->refused(), 1u);
}

TEST(DataServerTest, RefusesWithoutAValidTicketAndKeepsTheTicket) {
  auto server = Loopback();
  server->Allow(9, TicketOf(1), 1'000'000, 10s);
  EXPECT_EQ(Fetch(*server, 9, TicketOf(2), 1'000'000), 0u);  // another ticket
  EXPECT_EQ(Fetch(*server, 9, TicketOf(1), 2'000'000), 0u);  // more bytes than issued
  DataRequestWire garbage{};
  garbage.fill('x');
  EXPECT_EQ(Fetch(*server, garbage), 0u);  // not a request
  EXPECT_EQ(server->refused(), 3u);
  EXPECT_EQ(server->bytes_served(), 0u);
  // None of them used the ticket up: its reader still gets its bytes.
  EXPECT_EQ(Fetch(*server, 9, TicketOf(1), 1'000'000), 1'000'000u);
}

TEST(DataServerTest, RefusesAnExpiredTicket) {
  auto server = Loopback();
  server->Allow(3, TicketOf(5), 1000, 1ms);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(Fetch(*server, 3, TicketOf(5), 1000), 0u);
  EXPECT_EQ(server->refused(), 1u);
}

TEST(DataServerTest, WaitsForATicketStillOnItsWay) {
  auto server = Loopback();
  std::thread late([&] {
    std::this_thread::sleep_for(300ms);
    server->Allow(4, TicketOf(8), 5000, 10s);
  });
  EXPECT_EQ(Fetch(*server, 4, TicketOf(8), 5000), 5000u);
  late.join();
}

TEST(DataServerTest, AReaderThatLeavesStopsItsTransfer) {
  auto server = Loopback();
  constexpr uint64_t kBig = uint64_t{20} << 30;  // far more than the socket buffers hold
  server->Allow(5, TicketOf(3), kBig, 10s);
  const int fd = Connect(*server);
  const DataRequestWire wire = EncodeDataRequest(DataRequest{.transfer = 5, .ticket = TicketOf(3), .bytes = kBig});
  ASSERT_EQ(send(fd, wire.data(), wire.size(), MSG_NOSIGNAL), static_cast<ssize_t>(wire.size()));
  std::vector<char> buf(1 << 20);
  ASSERT_GT(read(fd, buf.data(), buf.size()), 0);
  close(fd);  // as a killed phase's process does
  // The server notices and stops: what it served stays far below the transfer.
  uint64_t before = 0;
  for (int i = 0; i < 50; ++i) {
    std::this_thread::sleep_for(20ms);
    before = server->bytes_served();
  }
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(server->bytes_served(), before);
  EXPECT_LT(before, uint64_t{1} << 30);
}

TEST(DataServerTest, TheBuiltinNetWorkReadsThroughTheDataPort) {
  auto server = Loopback();
  server->Allow(11, TicketOf(9), 8'000'000, 10s);
  BuiltinJob job{.work = BuiltinWork::kNet, .bytes = 8'000'000};
  ASSERT_TRUE(ParseDataAddress(server->address(), job.pull.address, job.pull.address_len));
  job.pull.request = EncodeDataRequest(DataRequest{.transfer = 11, .ticket = TicketOf(9), .bytes = 8'000'000});
  job.pull.bytes = 8'000'000;
  EXPECT_EQ(RunBuiltin(job), 0);
  EXPECT_EQ(server->bytes_served(), 8'000'000u);
  // Again with the used ticket: the server closes at once and the work fails.
  EXPECT_NE(RunBuiltin(job), 0);
  EXPECT_EQ(server->bytes_served(), 8'000'000u);
}

TEST(DataTicketsTest, KeepsAtMostItsBoundDroppingTheOldest) {
  DataTickets tickets;
  const auto now = DataTickets::Clock::now();
  for (uint64_t t = 0; t < DataTickets::kMaxTickets + 10; ++t) tickets.Allow(t, TicketOf(0), 1, now + 10s);
  EXPECT_EQ(tickets.size(), DataTickets::kMaxTickets);
  EXPECT_EQ(tickets.Take(DataRequest{.transfer = 0, .ticket = TicketOf(0), .bytes = 1}, now, now),
            DataTickets::Verdict::kUnknown);
  EXPECT_EQ(tickets.Take(DataRequest{.transfer = DataTickets::kMaxTickets + 9, .ticket = TicketOf(0), .bytes = 1}, now, now),
            DataTickets::Verdict::kServe);
}

TEST(DataAddressTest, ParsesNumericHostPortsOnly) {
  sockaddr_storage a{};
  socklen_t len = 0;
  EXPECT_TRUE(ParseDataAddress("127.0.0.1:9000", a, len));
  EXPECT_TRUE(ParseDataAddress("[::1]:9000", a, len));
  EXPECT_FALSE(ParseDataAddress("localhost:9000", a, len));
  EXPECT_FALSE(ParseDataAddress("127.0.0.1", a, len));
  EXPECT_FALSE(ParseDataAddress("127.0.0.1:0", a, len));
  EXPECT_FALSE(ParseDataAddress("127.0.0.1:99999", a, len));
  EXPECT_EQ(DataHostReaching("unix:/tmp/x"), "127.0.0.1");
  EXPECT_EQ(DataHostReaching("127.0.0.1:5000"), "127.0.0.1");
}

}  // namespace
}  // namespace weft::runtime
