// The oracle's parts of `gridlock oracle serve` and `gridlock oracle query` (moved from the CLI):
// --listen, the URL host, the query names and the usage checks made before any request.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/oracle/client.hpp"
#include "gridlock/oracle/server.hpp"

namespace gridlock::oracle {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(OracleCommands, ListenTakesHostPortAndBracketedIpv6) {
  const ListenAddress plain = parse_listen("127.0.0.1:8600");
  EXPECT_EQ(plain.host, "127.0.0.1");
  EXPECT_EQ(plain.port, 8600);
  const ListenAddress v6 = parse_listen("[::1]:0");
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 0);
  EXPECT_EQ(url_host(v6.host), "[::1]");
  EXPECT_EQ(url_host(plain.host), "127.0.0.1");
  EXPECT_THAT([] { (void)parse_listen("8600"); }, ThrowsMessage<InputError>(HasSubstr("must be HOST:PORT")));
  EXPECT_THAT([] { (void)parse_listen(":8600"); }, ThrowsMessage<InputError>(HasSubstr("must be HOST:PORT")));
  EXPECT_THAT([] { (void)parse_listen("::1:8600"); },
              ThrowsMessage<InputError>(HasSubstr("goes in brackets")));
  EXPECT_THAT([] { (void)parse_listen("[:8600"); }, ThrowsMessage<InputError>(HasSubstr("goes in brackets")));
  for (const char* bad : {"h:65536", "h:-1", "h:80x", "h:", "h:99999999999"}) {
    EXPECT_THAT([&] { (void)parse_listen(bad); },
                ThrowsMessage<InputError>(HasSubstr("the port must be 0..65535")))
        << bad;
  }
}

TEST(OracleCommands, QueryNamesAndUsageAreCheckedBeforeAnyRequest) {
  for (const char* name : {"health", "topology", "node", "route", "links", "metrics", "matrix"}) {
    EXPECT_NO_THROW(check_query_name(name)) << name;
  }
  EXPECT_THAT([] { check_query_name("Health"); },
              ThrowsMessage<InputError>(HasSubstr("unknown query 'Health'")));
  // Port 9 (discard) on loopback: nothing is asked, so nothing needs to listen there.
  Client client("http://127.0.0.1:9", 1);
  const MetricQuery query;
  const auto usage = [&](const char* what, const std::vector<std::string>& args) {
    try {
      (void)query_text(client, what, args, query, 10, false);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(usage("health", {"x"}), "usage: gridlock oracle query health");
  EXPECT_EQ(usage("node", {}), "usage: gridlock oracle query node NAME");
  EXPECT_EQ(usage("route", {"a"}), "usage: gridlock oracle query route SRC DST");
  EXPECT_EQ(usage("links", {"a"}), "usage: gridlock oracle query links [--top N]");
  EXPECT_THAT(usage("metrics", {}), HasSubstr("usage: gridlock oracle query metrics"));
  EXPECT_EQ(usage("metrics", {"a-b"}), "pair 'a-b' must be SRC:DST, e.g. nid00012:nid00038");
  EXPECT_THAT(usage("matrix", {}), HasSubstr("usage: gridlock oracle query matrix"));
  EXPECT_THAT(usage("nodes", {}), HasSubstr("unknown query 'nodes'"));
}

}  // namespace
}  // namespace gridlock::oracle
