/**
 * A full garbage collection on demand, for measurements that must not see another benchmark's
 * garbage: recall's retained memory (bench/recall.ts), and the event loop's delays while an image is
 * resized (bench/images.ts), which a major collection of earlier garbage would lengthen.
 */
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Collects twice (what a first collection frees can let a second free more), after a pause that lets finished async work let go. */
export async function collectGarbage(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc();
  gc();
}
