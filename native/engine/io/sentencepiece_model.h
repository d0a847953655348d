// The SentencePiece model a file embeds (NVIDIA's GGUFs: asr.tokenizer.spm_model; nvidia_schema.h),
// read for one job: exact text → pieces for the custom vocabulary (phrase_graph.h), where the piece
// list alone allows only plausible segmentations. Reads the ModelProto's pieces, scores and model
// type; encodes one whitespace-delimited word as SentencePiece's encoder does for that type.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

namespace parakeet {

class SentencePieceModel {
public:
    /** Parses a serialized ModelProto; throws Error(ModelInvalid) naming what is malformed. */
    static SentencePieceModel parse(const std::string & bytes);

    /**
     * The pieces of `marked_word` ("▁" + one word) as SentencePiece encodes it: unigram models take the
     * segmentation of the highest summed score (sentencepiece unigram_model.cc, Model::Encode's Viterbi),
     * BPE models merge the adjacent pair whose union is the best-scored piece, leftmost first, until
     * none is (bpe_model.cc). Empty when a character has no piece (SentencePiece would emit <unk>).
     */
    std::vector<std::string> encode_word(const std::string & marked_word) const;

    bool is_bpe() const { return bpe_; }
    size_t size() const { return scores_.size(); }

private:
    std::unordered_map<std::string, float> scores_;  // normal and user-defined pieces (controls, <unk>, bytes left out)
    size_t longest_ = 1;                             // bytes of the longest piece
    bool bpe_ = false;
};

}  // namespace parakeet
