#include "gridlock/topo/fat_tree.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gridlock/core/error.hpp"

namespace gridlock::topo {

FatTree::FatTree(FatTreeOptions options) : options_(std::move(options)), m_(options_.down) {
  const int h = static_cast<int>(m_.size());
  if (h < 1 || h > 6) {
    throw InputError(
        "fat tree needs 1 to 6 levels, e.g. 'fattree:16x8' (16 nodes per leaf, 8 leaves per spine)");
  }
  long long node_count = 1;
  for (const int m : m_) {
    if (m < 1 || m > kMaxRadix) {
      throw InputError(fmt::format("fat tree children per switch must be 1..{} (got {})", kMaxRadix, m));
    }
    node_count *= m;
  }
  if (node_count > kMaxTopologyNodes) {
    throw InputError(fmt::format("fat tree too large: at most {} nodes", kMaxTopologyNodes));
  }
  // An infinite taper passed `>= 1` and was written to JSON as null.
  if (!(options_.taper >= 1) || !std::isfinite(options_.taper)) {
    throw InputError(fmt::format(
        "fat tree taper must be a finite number >= 1 (got {}), e.g. 'taper=2' for 2:1", options_.taper));
  }
  if (!(options_.capacity_bytes_per_s > 0)) {
    throw InputError("fat tree link capacity must be positive");
  }
  if (!options_.up.empty()) {
    if (static_cast<int>(options_.up.size()) != h - 1) {
      throw InputError(fmt::format("fat tree 'up' lists {} values but a {}-level tree needs {} (w2..wh)",
                                   options_.up.size(), h, h - 1));
    }
    w_ = options_.up;
  } else {
    for (int l = 2; l <= h; ++l) {
      w_.push_back(
          std::max(1, static_cast<int>(std::floor(m_[static_cast<std::size_t>(l - 2)] / options_.taper))));
    }
  }
  for (const int w : w_) {
    if (w < 1 || w > kMaxRadix) {
      throw InputError(fmt::format("fat tree up ports per switch must be 1..{} (got {})", kMaxRadix, w));
    }
  }
  // W[l] = w_2 * ... * w_l (W[1] = 1); A[l] = m_{l+1} * ... * m_h (switches' a-part count).
  const auto W = [&](int l) {
    long long out = 1;
    for (int j = 2; j <= l; ++j) {
      out *= w_[static_cast<std::size_t>(j - 2)];
    }
    return out;
  };
  const auto A = [&](int l) {
    long long out = 1;
    for (int j = l + 1; j <= h; ++j) {
      out *= m_[static_cast<std::size_t>(j - 1)];
    }
    return out;
  };
  long long total = 0;
  for (int l = 1; l <= h; ++l) {
    total += A(l) * W(l);
  }
  if (total > kMaxTopologyNodes) {
    throw InputError(fmt::format("fat tree too large: at most {} switches", kMaxTopologyNodes));
  }
  // Every switch below the top has w up-links, each a pair of directed links: bounded before
  // building, as 'fattree:1x4096x2,up=4096x1' (8192 nodes) would ask for 67 M links (about 13 GB).
  long long links = 0;
  for (int l = 2; l <= h; ++l) {
    links += 2 * A(l - 1) * W(l - 1) * w_[static_cast<std::size_t>(l - 2)];
  }
  if (links > kMaxTopologyLinks) {
    throw InputError(
        fmt::format("fat tree too large: {} network links, at most {}; lower the up-links (up, taper)", links,
                    kMaxTopologyLinks));
  }
  reserve(static_cast<std::size_t>(A(0)), static_cast<std::size_t>(total), static_cast<std::size_t>(links));
  for (int l = 1; l <= h; ++l) {
    level_first_.push_back(static_cast<RouterId>(routers().size()));
    const long long count = A(l) * W(l);
    for (long long i = 0; i < count; ++i) {
      add_router(fmt::format("L{}s{}", l, i), {l, static_cast<int>(i)});
    }
  }
  up_link_.assign(routers().size(), {});
  down_link_.assign(routers().size(), {});
  for (int l = 2; l <= h; ++l) {
    const int m = m_[static_cast<std::size_t>(l - 1)];
    const int w = w_[static_cast<std::size_t>(l - 2)];
    const long long below = A(l - 1) * W(l - 1);
    for (long long i = 0; i < below; ++i) {
      const long long b_part = i % W(l - 1);
      const long long a_part = i / W(l - 1);
      const auto digit = static_cast<int>(a_part % m);
      const auto child = static_cast<RouterId>(level_first_[static_cast<std::size_t>(l - 2)] + i);
      up_link_[child].resize(static_cast<std::size_t>(w));
      for (int k = 0; k < w; ++k) {
        const long long parent_index = (a_part / m) * W(l) + b_part + k * W(l - 1);
        const auto parent =
            static_cast<RouterId>(level_first_[static_cast<std::size_t>(l - 1)] + parent_index);
        down_link_[parent].resize(static_cast<std::size_t>(m));
        up_link_[child][static_cast<std::size_t>(k)] =
            add_link(child, parent, fmt::format("up{}", k), fmt::format("down{}", digit),
                     options_.capacity_bytes_per_s);
        down_link_[parent][static_cast<std::size_t>(digit)] =
            add_link(parent, child, fmt::format("down{}", digit), fmt::format("up{}", k),
                     options_.capacity_bytes_per_s);
      }
    }
  }
  int nid = 0;
  for (long long i = 0; i < node_count; ++i) {
    add_node(fmt::format("n{:05d}", nid++), static_cast<RouterId>(level_first_[0] + i / m_[0]));
  }
  finish(options_.capacity_bytes_per_s);
}

int FatTree::common_level(RouterId src, RouterId dst) const {
  const int h = levels();
  const RouterId leaves = h > 1 ? level_first_[1] : static_cast<RouterId>(routers().size());
  if (src >= leaves || dst >= leaves) {
    throw std::out_of_range("fat tree routes are defined between leaf switches");
  }
  // Lowest common level L: the a-parts at level L agree (a-part at level l = leaf / (m_2*...*m_l)).
  const long long s = src;
  const long long d = dst;
  int top = 1;
  long long m_prod = 1;
  while (s / m_prod != d / m_prod) {
    ++top;
    m_prod *= m_[static_cast<std::size_t>(top - 1)];
  }
  return top;
}

void FatTree::append_up_down(RouterId src, RouterId dst, std::uint64_t up_key, const std::uint64_t* choice,
                             std::vector<LinkId>& out) const {
  const int top = common_level(src, dst);
  const long long d = dst;
  std::uint64_t w_prod = 1;  // W(l-1)
  std::uint64_t rest = choice != nullptr ? *choice : 0;
  RouterId cur = src;
  for (int l = 2; l <= top; ++l) {
    const int w = w_[static_cast<std::size_t>(l - 2)];
    // D-mod-k, or the choice index's digit for this level (mixed radix w2, w3, ...).
    std::size_t k = static_cast<std::size_t>((up_key / w_prod) % static_cast<std::uint64_t>(w));
    if (choice != nullptr) {
      k = static_cast<std::size_t>(rest % static_cast<std::uint64_t>(w));
      rest /= static_cast<std::uint64_t>(w);
    }
    const LinkId link = up_link_[cur][k];
    out.push_back(link);
    cur = links()[link].dst_router;
    w_prod *= static_cast<std::uint64_t>(w);
  }
  for (int l = top; l >= 2; --l) {
    long long below = 1;
    for (int j = 2; j <= l - 1; ++j) {
      below *= m_[static_cast<std::size_t>(j - 1)];
    }
    const auto digit = static_cast<std::size_t>((d / below) % m_[static_cast<std::size_t>(l - 1)]);
    const LinkId link = down_link_[cur][digit];
    out.push_back(link);
    cur = links()[link].dst_router;
  }
}

void FatTree::append_router_route(RouterId src, RouterId dst, std::vector<LinkId>& out) const {
  append_up_down(src, dst, dst, nullptr, out);
}

void FatTree::append_node_route(NodeId src, NodeId dst, std::vector<LinkId>& out) const {
  // By destination node, not leaf: by leaf, every route into a leaf from below one level-2
  // switch comes down one of its w_2 links, a bottleneck real D-mod-k fat trees do not have.
  append_up_down(nodes()[src].router, nodes()[dst].router, dst, nullptr, out);
}

std::uint64_t FatTree::router_route_choices(RouterId src, RouterId dst) const {
  // Any up port at every level below the common one reaches an ancestor of both leaves; the way
  // down from it is unique. At most 4096^5 (six levels of kMaxRadix ports): no overflow.
  const int top = common_level(src, dst);
  std::uint64_t choices = 1;
  for (int l = 2; l <= top; ++l) {
    choices *= static_cast<std::uint64_t>(w_[static_cast<std::size_t>(l - 2)]);
  }
  return choices;
}

void FatTree::append_router_route_choice(RouterId src, RouterId dst, std::uint64_t choice,
                                         std::vector<LinkId>& out) const {
  append_up_down(src, dst, 0, &choice, out);
}

std::size_t FatTree::closed_form_hops(NodeId src, NodeId dst) const {
  long long s = src / m_[0];
  long long d = dst / m_[0];
  std::size_t hops = 0;
  std::size_t level = 1;
  while (s != d) {
    s /= m_[level];
    d /= m_[level];
    ++level;
    hops += 2;
  }
  return hops;
}

std::string FatTree::spec() const {
  std::string out = fmt::format("fattree:{}", fmt::join(m_, "x"));
  if (!w_.empty()) {
    out += fmt::format(",up={}", fmt::join(w_, "x"));
  }
  return out + fmt::format(",cap={}", options_.capacity_bytes_per_s);
}

Parameters FatTree::parameters() const {
  return {
      {"levels", std::int64_t{levels()}},
      {"down", std::vector<std::int64_t>(m_.begin(), m_.end())},
      {"up", std::vector<std::int64_t>(w_.begin(), w_.end())},
      {"taper", options_.taper},
      {"capacity_bytes_per_s", options_.capacity_bytes_per_s},
  };
}

}  // namespace gridlock::topo
