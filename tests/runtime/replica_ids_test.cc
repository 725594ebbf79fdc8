// ReplicaIds: the global ids several scheduler daemons share.
#include "runtime/replica_ids.h"

#include "gtest/gtest.h"
#include "runtime/wire.h"

namespace weft::runtime {
namespace {

TEST(ReplicaIdsTest, EachGlobalIdHasExactlyOneOwnerAndRoundTrips) {
  for (uint32_t count : {1u, 2u, 3u}) {
    for (uint32_t global = 0; global < 30; ++global) {
      int owners = 0;
      for (uint32_t index = 0; index < count; ++index) {
        const ReplicaIds ids{index, count};
        const std::optional<uint32_t> local = ids.Local(global);
        if (!local) continue;
        ++owners;
        EXPECT_EQ(ids.Global(*local), global);
        EXPECT_EQ(ReplicaIds::Owner(global, count), index);
      }
      EXPECT_EQ(owners, 1) << global << " of " << count;
    }
  }
}

TEST(ReplicaIdsTest, MailLeavesWithGlobalIdsAndActionsComeBackLocal) {
  const ReplicaIds ids{1, 3};  // local 2 is global 7
  v1::AgentMail mail;
  mail.set_kind(v1::AgentMail::MESSAGE);
  *mail.mutable_from() = ToProto(policy::Address::Scheduler(2));
  *mail.mutable_message() = ToProto(policy::Message{.type = 1, .task = TaskRef{JobId(2), 0, 5}, .a = 2});
  mail.add_jobs()->set_id(2);
  ids.ToGlobal(mail);
  EXPECT_EQ(mail.from().index(), 7u);
  EXPECT_EQ(mail.message().job(), 7u);
  EXPECT_EQ(mail.message().task(), 5u);
  EXPECT_EQ(mail.message().a(), 2);  // payloads are the policy's: untouched
  EXPECT_EQ(mail.jobs(0).id(), 7u);

  v1::AgentAction reply;
  *reply.mutable_to() = ToProto(policy::Address::Scheduler(7));
  *reply.mutable_message() = mail.message();
  ASSERT_TRUE(ids.ToLocal(reply));
  EXPECT_EQ(reply.to().index(), 2u);
  EXPECT_EQ(reply.message().job(), 2u);

  v1::AgentAction elsewhere;  // job 6 belongs to daemon 0
  elsewhere.set_launch(true);
  *elsewhere.mutable_message() = ToProto(policy::Message{.task = TaskRef{JobId(6), 0, 0}});
  EXPECT_FALSE(ids.ToLocal(elsewhere));

  v1::AgentAction to_node;  // node addresses are not translated
  *to_node.mutable_to() = ToProto(policy::Address::Node(MachineId(4)));
  ASSERT_TRUE(ids.ToLocal(to_node));
  EXPECT_EQ(to_node.to().index(), 4u);
}

}  // namespace
}  // namespace weft::runtime
