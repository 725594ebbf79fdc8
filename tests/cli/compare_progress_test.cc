// What `weft compare` shows on a terminal while its policies run
// (cli/compare_progress.h): each policy named as it starts or ends, one at a
// time or several at once.
#include "cli/compare_progress.h"

#include <sstream>

#include "gtest/gtest.h"

namespace weft::cli {
namespace {

TEST(CompareProgressTest, OneAtATimeNamesEachPolicyAsItStartsAndEnds) {
  std::ostringstream out;
  {
    CompareProgress p(out, {"fifo", "fair"}, /*parallel=*/false);
    p.Started(0);
    p.Finished(0, 1.5, true);
    p.Started(1);
    p.Finished(1, 0.25, false);
  }
  EXPECT_EQ(out.str(),
            "compare: fifo running (1 of 2)\n"
            "compare: fifo done in 1.50 s (1 of 2 done)\n"
            "compare: fair running (2 of 2)\n"
            "compare: fair failed in 0.25 s (2 of 2 done)\n");
}

TEST(CompareProgressTest, SeveralAtOnceRedrawAStatusLineOfThoseRunning) {
  std::ostringstream out;
  {
    CompareProgress p(out, {"fifo", "fair", "drf"}, /*parallel=*/true);
    p.Started(0);
    p.Started(1);
    p.Finished(1, 2, true);
    p.Started(2);
    p.Finished(0, 3, true);
    p.Finished(2, 1, true);
  }
  EXPECT_EQ(out.str(),
            "\r\033[Kcompare: running fifo (0 of 3 done)"
            "\r\033[Kcompare: running fifo, fair (0 of 3 done)"
            "\r\033[Kcompare: fair done in 2.00 s (1 of 3 done)\n"
            "\r\033[Kcompare: running fifo (1 of 3 done)"
            "\r\033[Kcompare: running fifo, drf (1 of 3 done)"
            "\r\033[Kcompare: fifo done in 3.00 s (2 of 3 done)\n"
            "\r\033[Kcompare: running drf (2 of 3 done)"
            "\r\033[Kcompare: drf done in 1.00 s (3 of 3 done)\n");
}

}  // namespace
}  // namespace weft::cli
