// SHA-256 (bundle content digests) against the FIPS 180-4 example vectors, fed whole and in pieces
// that straddle the 64-byte blocks.
#include <algorithm>
#include <string>

#include "check.h"
#include "sha256.h"

using namespace parakeet;

namespace {

std::string digest_of(const std::string & text, size_t piece) {
    Sha256 hash;
    for (size_t at = 0; at < text.size(); at += piece) hash.update(text.data() + at, std::min(piece, text.size() - at));
    return hash.hex_digest();
}

}  // namespace

TEST(sha256_fips_vectors) {
    CHECK_EQ(digest_of("", 1), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    CHECK_EQ(digest_of("abc", 3), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    const std::string two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    for (size_t piece : {size_t(1), size_t(7), size_t(56), size_t(64)}) {
        CHECK_EQ(digest_of(two_blocks, piece), std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    }
    CHECK_EQ(digest_of(std::string(1000000, 'a'), 4096), std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
}
