// Models of one unchanged file share one parsed, mapped GgufFile
// (shared_gguf.h); a changed file, or an unmapped open, gets its own.
#include <cstdio>
#include <memory>

#include "check.h"
#include "shared_gguf.h"
#include "test_files.h"

using namespace parakeet;
using namespace parakeet_tests;

TEST(shared_gguf_one_mapping_per_unchanged_file) {
    const std::string path = scratch("shared.gguf");
    write_gguf(path, "parakeet", "tdt");
    std::shared_ptr<const GgufFile> a = open_shared_gguf(path, true);
    std::shared_ptr<const GgufFile> b = open_shared_gguf(path, true);
    CHECK(a != nullptr && a.get() == b.get());
    CHECK(a->mapping() != nullptr);
    std::shared_ptr<const GgufFile> unmapped = open_shared_gguf(path, false);
    CHECK(unmapped.get() != a.get());
    CHECK(unmapped->mapping() == nullptr);
    // Rewritten (other content, other size): the models still alive keep the old mapping, a new one maps anew.
    write_gguf(path, "parakeet", "hybrid_tdt_ctc");
    std::shared_ptr<const GgufFile> changed = open_shared_gguf(path, true);
    CHECK(changed.get() != a.get());
    CHECK_EQ(changed->get_string("parakeet.arch", ""), std::string("hybrid_tdt_ctc"));
    CHECK_EQ(a->get_string("parakeet.arch", ""), std::string("tdt"));
    std::remove(path.c_str());
}
