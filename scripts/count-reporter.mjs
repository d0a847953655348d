// A node:test reporter that counts leaf tests and writes the totals as JSON
// to the file named by PARAKEET_TEST_COUNTS (scripts/test.mjs reads it).
import { writeFileSync } from 'node:fs';

export default async function* countReporter(source) {
  const counts = { passed: 0, failed: 0, skipped: 0, failures: [] };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { data } = event;
    if (data.details?.type === 'suite') continue;
    if (data.skip || data.todo) counts.skipped += 1;
    else if (event.type === 'test:pass') counts.passed += 1;
    else {
      counts.failed += 1;
      counts.failures.push(`${data.file ?? ''} › ${data.name}`);
    }
  }
  const target = process.env.PARAKEET_TEST_COUNTS;
  if (target) writeFileSync(target, JSON.stringify(counts));
  yield '';
}
