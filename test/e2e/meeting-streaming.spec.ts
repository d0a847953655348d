// A meeting on a cache-aware streaming model (issue 39), web mode: a generated EOU-120M-like model, Chromium's
// fake microphone playing the three sentences ("You") and the test's own PulseAudio playing them into its
// null sink ("Others"). Each track feeds its segments to an engine stream of its own, beside the other:
// partials appear on the tracks and only grow, the model's <EOU> closes utterances between the pauses (more
// finals than the pauses make), each final continues its last partial, and after Stop every final with text
// is a segment of the History entry. Skipped with the reason where PulseAudio cannot start.
import type { MeetingFinal, MeetingPartial, MeetingTrackName } from '../../app/ipc/contract.js';
import type { TestPulseAudio } from '../support/audio/pulseaudio.js';
import { expect, test } from './support/fixtures.js';
import { startMeeting, useMeetingSetup } from './support/meeting.js';
import { SENTENCES, SPEECH_WAV, STREAM_EOU_MODEL_PATH } from './support/paths.js';

const setup = useMeetingSetup({ model: STREAM_EOU_MODEL_PATH, micWav: SPEECH_WAV });

test('both tracks stream: partials grow, <EOU> ends utterances, the finals are the History entry', async ({ app, server }) => {
  test.skip(typeof setup.pulse === 'string', `PulseAudio cannot start here: ${String(setup.pulse)}`);
  const sound = setup.pulse as TestPulseAudio;
  // Server-side truth: what the meeting service emitted, before it reached the page.
  const finals: MeetingFinal[] = [];
  const partials: MeetingPartial[] = [];
  const offFinals = server.services.bus.on('meeting:transcript', (e) => finals.push(e));
  const offPartials = server.services.bus.on('meeting:partial', (e) => partials.push(e));
  const of = (track: MeetingTrackName) => ({ finals: finals.filter((f) => f.track === track), partials: partials.filter((p) => p.track === track) });
  try {
    await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
    expect(server.services.engine.loadedModel?.streaming, 'the resident model is a streaming model').toBe(true);
    const transcript = await startMeeting(app, server);
    await sound.play(SPEECH_WAV);
    // The three sentences are separated by pauses; this model also ends utterances by itself, on each track.
    for (const track of ['you', 'others'] as const) {
      await expect.poll(() => of(track).finals.length, { timeout: 45_000, message: `${track}: finals` }).toBeGreaterThan(SENTENCES.length);
      expect(of(track).partials.length, `${track}: partials`).toBeGreaterThan(0);
    }
    // The page showed them: a line per final with text.
    const spoken = (): MeetingFinal[] => finals.filter((f) => f.text.trim() !== '');
    await expect(transcript.locator('li', { hasText: 'You:' }).first()).toBeVisible();
    await expect(transcript.locator('li', { hasText: 'Others:' }).first()).toBeVisible();
    await app.getByTestId('meeting-stop').click();
    await expect(app.getByText(/Saved to History/)).toBeVisible({ timeout: 30_000 });

    // Committed tokens only: each segment's partials grow, and its final continues the last of them.
    for (const track of ['you', 'others'] as const) {
      for (const f of of(track).finals) {
        const texts = of(track).partials.filter((p) => p.trackSegment === f.trackSegment).map((p) => p.text);
        for (let i = 1; i < texts.length; i++) expect(texts[i]!.startsWith(texts[i - 1]!), `${track} segment ${f.trackSegment}: "${texts[i]}" grows "${texts[i - 1]}"`).toBe(true);
        if (texts.length) expect(f.text.startsWith(texts.at(-1)!), `${track} segment ${f.trackSegment}'s final continues its partial`).toBe(true);
      }
    }

    // History: exactly the finals with text, each with its text.
    await app.keyboard.press('Alt+3');
    await app.getByTestId('history-entry').first().click();
    await expect(app.getByTestId('history-detail')).toContainText('Meeting');
    const segments = app.getByTestId('history-segment');
    const expected = spoken();
    await expect(segments).toHaveCount(expected.length);
    for (const f of expected) await expect(segments.and(app.locator(`[data-segment-id="${f.segmentId}"]`))).toContainText(f.text.trim());
  } finally {
    offFinals();
    offPartials();
  }
});
