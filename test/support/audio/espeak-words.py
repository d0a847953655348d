#!/usr/bin/env python3
# espeak-ng's own word timings, through libespeak-ng's synthesis callback (the
# espeak-ng command line cannot print them; there are no development headers
# to compile against, so ctypes declares the few calls and the event struct).
#
# stdin: JSON list of jobs {"text", "voice", "rate", "pitch", "out"};
# for each job: 16-bit mono PCM WAV at espeak's rate (22050 Hz) written to
# "out", and on stdout one JSON line
#   {"out", "sampleRate", "samples", "words": [{"text", "start", "end"}]}
# with word start/end in seconds from the first sample of that WAV. A word
# starts with its first phoneme (PHONEME events carry the sample where each
# phoneme starts; a WORD event can come after the previous word's last
# phoneme has started) and ends where the next word's first phoneme or a
# pause phoneme ("_") starts, or at the end of the utterance.
import ctypes
import json
import struct
import sys

AUDIO_OUTPUT_SYNCHRONOUS = 2
INITIALIZE_PHONEME_EVENTS = 0x0001
EV_LIST_TERMINATED, EV_WORD, EV_SENTENCE, EV_MARK, EV_PLAY, EV_END, EV_MSG_TERMINATED, EV_PHONEME = range(8)
RATE, VOLUME, PITCH = 1, 2, 3
CHARS_UTF8 = 1
POS_CHARACTER = 1


class Event(ctypes.Structure):
    _fields_ = [
        ('type', ctypes.c_int),
        ('unique_identifier', ctypes.c_uint),
        ('text_position', ctypes.c_int),
        ('length', ctypes.c_int),
        ('audio_position', ctypes.c_int),
        ('sample', ctypes.c_int),
        ('user_data', ctypes.c_void_p),
        ('id', ctypes.c_char * 8),  # union { int number; const char *name; char string[8]; }
    ]


CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(Event))


def main() -> None:
    lib = ctypes.CDLL('libespeak-ng.so.1')
    lib.espeak_Initialize.restype = ctypes.c_int
    rate = lib.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, None, INITIALIZE_PHONEME_EVENTS)
    if rate <= 0:
        sys.exit('espeak_Initialize failed')
    state = {'pcm': bytearray(), 'events': []}

    @CALLBACK
    def on_synth(wav, n, events):
        if n > 0:
            state['pcm'] += ctypes.string_at(wav, n * 2)
        i = 0
        while events[i].type != EV_LIST_TERMINATED:
            e = events[i]
            state['events'].append((e.type, e.text_position, e.length, e.sample, bytes(e.id)))
            i += 1
        return 0

    lib.espeak_SetSynthCallback(on_synth)
    for job in json.load(sys.stdin):
        state['pcm'] = bytearray()
        state['events'] = []
        if lib.espeak_SetVoiceByName(job['voice'].encode()) != 0:
            sys.exit(f"unknown espeak-ng voice {job['voice']}")
        lib.espeak_SetParameter(RATE, int(job['rate']), 0)
        lib.espeak_SetParameter(PITCH, int(job['pitch']), 0)
        text = job['text'].encode('utf-8') + b'\0'
        if lib.espeak_Synth(text, len(text), 0, POS_CHARACTER, 0, CHARS_UTF8, None, None) != 0:
            sys.exit('espeak_Synth failed')
        lib.espeak_Synchronize()
        pcm = bytes(state['pcm'])
        samples = len(pcm) // 2
        words = []
        chars = job['text']
        current = None  # the word being spoken: {'text', 'start', 'end'}
        pending = None  # a WORD event whose first phoneme has not come yet
        for kind, pos, length, sample, name in state['events']:
            if kind == EV_WORD:
                pending = chars[pos - 1:pos - 1 + length]
            elif kind == EV_PHONEME and name.startswith(b'_'):
                if current is not None:  # a pause ends the word
                    current['end'] = sample / rate
                    words.append(current)
                    current = None
            elif kind == EV_PHONEME:
                if pending is not None:  # the first phoneme of a new word ends the previous one
                    if current is not None:
                        current['end'] = sample / rate
                        words.append(current)
                    current = {'text': pending, 'start': sample / rate, 'end': sample / rate}
                    pending = None
            elif kind in (EV_END, EV_MSG_TERMINATED):
                if current is not None:
                    current['end'] = sample / rate
                    words.append(current)
                    current = None
        if current is not None:
            current['end'] = samples / rate
            words.append(current)
        words = [{'text': w['text'], 'start': round(w['start'], 4), 'end': round(w['end'], 4)} for w in words]
        with open(job['out'], 'wb') as f:
            f.write(b'RIFF' + struct.pack('<I', 36 + len(pcm)) + b'WAVEfmt ' +
                    struct.pack('<IHHIIHH', 16, 1, 1, rate, rate * 2, 2, 16) + b'data' + struct.pack('<I', len(pcm)) + pcm)
        print(json.dumps({'out': job['out'], 'sampleRate': rate, 'samples': samples, 'words': words}), flush=True)


if __name__ == '__main__':
    main()
