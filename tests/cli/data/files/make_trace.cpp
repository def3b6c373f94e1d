// Writes the two-rank OTF2 trace of tests/cli/data/files/trace (a ping-pong and an allreduce, the
// archive of tests/unit/trace/from_trace_test.cpp). Run once to regenerate the fixture:
//   g++ -std=c++20 make_trace.cpp $(pkg-config --cflags --libs otf2) -o /tmp/make_trace && /tmp/make_trace
//   trace
#include <otf2/otf2.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>

namespace {

OTF2_FlushType pre_flush(void* /*user*/, OTF2_FileType /*type*/, OTF2_LocationRef /*loc*/, void* /*cb*/,
                         bool /*final*/) {
  return OTF2_FLUSH;
}
OTF2_TimeStamp post_flush(void* /*user*/, OTF2_FileType /*type*/, OTF2_LocationRef /*loc*/) { return 0; }

// A two-rank ping-pong archive in `dir`; with `definitions` false, no global definitions (a run
// that ended without MPI_Finalize).
void write_archive(const std::filesystem::path& dir, bool definitions = true) {
  std::filesystem::remove_all(dir);
  OTF2_Archive* archive =
      OTF2_Archive_Open(dir.string().c_str(), "traces", OTF2_FILEMODE_WRITE, 1024ULL * 1024,
                        4ULL * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (archive == nullptr) {
    std::exit(1);
  }
  OTF2_FlushCallbacks flush{pre_flush, post_flush};
  OTF2_Archive_SetFlushCallbacks(archive, &flush, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(archive);
  OTF2_Archive_SetCreator(archive, "tests/cli/data/files/make_trace.cpp");
  OTF2_Archive_OpenEvtFiles(archive);
  for (std::uint64_t loc = 0; loc < 2; ++loc) {
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, loc);
    const std::uint32_t peer = 1 - static_cast<std::uint32_t>(loc);
    OTF2_EvtWriter_Enter(w, nullptr, 1000, 0);
    OTF2_EvtWriter_Leave(w, nullptr, 2000, 0);
    OTF2_EvtWriter_Enter(w, nullptr, 12000, loc == 0 ? 1 : 2);  // 10 us of compute
    if (loc == 0) {
      OTF2_EvtWriter_MpiSend(w, nullptr, 12100, peer, 0, 4, 256);
    } else {
      OTF2_EvtWriter_MpiRecv(w, nullptr, 12100, peer, 0, 4, 256);
    }
    OTF2_EvtWriter_Leave(w, nullptr, 13000, loc == 0 ? 1 : 2);
    OTF2_EvtWriter_Enter(w, nullptr, 14000, 3);
    OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, 14100);
    OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, 15000, OTF2_COLLECTIVE_OP_ALLREDUCE, 0,
                                    OTF2_COLLECTIVE_ROOT_NONE, 8, 8);
    OTF2_EvtWriter_Leave(w, nullptr, 15100, 3);
    OTF2_Archive_CloseEvtWriter(archive, w);
  }
  OTF2_Archive_CloseEvtFiles(archive);
  if (definitions) {
    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1'000'000'000, 0, 20000, OTF2_UNDEFINED_TIMESTAMP);
    const char* strings[] = {"",     "MPI_Init", "MPI_Send",      "MPI_Recv", "MPI_Allreduce",
                             "node", "rank",     "MPI_COMM_WORLD"};
    for (std::uint32_t i = 0; i < 8; ++i) {
      OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
    }
    for (std::uint32_t r = 0; r < 4; ++r) {
      OTF2_GlobalDefWriter_WriteRegion(g, r, r + 1, r + 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                       OTF2_REGION_FLAG_NONE, 0, 0, 0);
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 5, 5, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (std::uint64_t loc = 0; loc < 2; ++loc) {
      OTF2_GlobalDefWriter_WriteLocationGroup(g, static_cast<OTF2_LocationGroupRef>(loc), 6,
                                              OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                              OTF2_UNDEFINED_LOCATION_GROUP);
      OTF2_GlobalDefWriter_WriteLocation(g, loc, 6, OTF2_LOCATION_TYPE_CPU_THREAD, 8,
                                         static_cast<OTF2_LocationGroupRef>(loc));
    }
    const std::uint64_t members[] = {0, 1};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, members);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 7, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  }
  OTF2_Archive_Close(archive);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    return 2;
  }
  write_archive(argv[1]);
  return 0;
}
