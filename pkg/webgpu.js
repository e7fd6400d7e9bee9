// Main-thread handle on the WebGPU model worker (pkg/webgpu-worker.js): the models run
// there, never here. Each call is a message; results come back as transferred buffers.

/**
 * Starts the worker and its WebGPU device. Rejects when the browser has no WebGPU adapter
 * (callers then use the CPU runtime).
 * `load` may name the tensors to return (any node output; default: the model's outputs).
 * @returns {Promise<{adapter: object, load(name: string, url: string, outputs?: string[]): Promise<{ms: number}>,
 *   run(name: string, input: Float32Array): Promise<{outputs: Record<string, Float32Array>, ms: number}>,
 *   close(): void}>}
 */
export async function openGpuModels() {
  const worker = new Worker(new URL('./webgpu-worker.js', import.meta.url), { type: 'module' });
  let next = 0;
  const pending = new Map();
  worker.onmessage = ({ data }) => {
    const call = pending.get(data.id);
    if (!call) return;
    pending.delete(data.id);
    if (data.ok) call.resolve(data.result);
    else call.reject(Object.assign(new Error(data.error.message), { name: data.error.name }));
  };
  worker.onerror = (e) => {
    for (const call of pending.values()) call.reject(new Error(e.message || 'WebGPU worker failed'));
    pending.clear();
  };
  const call = (op, args = {}, transfer = []) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, op, ...args }, transfer);
  });
  try {
    const { adapter } = await call('init');
    return {
      adapter,
      load: (name, url, outputs = []) => call('load', { name, url: new URL(url, globalThis.location?.href).href, outputs }),
      run: (name, input) => call('run', { name, input }),
      close: () => worker.terminate(),
    };
  } catch (e) {
    worker.terminate();
    throw e;
  }
}
