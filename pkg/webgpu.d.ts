/** A model runtime on the page's WebGPU adapter, in its own worker. */
export interface GpuModels {
  /** The adapter the worker got (vendor/architecture as the browser reports them). */
  readonly adapter: { vendor: string; architecture: string; description: string };
  /**
   * Fetches (same origin; kept in the Cache API) and compiles a prepared model file.
   * `outputs` names the tensors `run` returns; default: the model's own outputs.
   */
  load(name: string, url: string, outputs?: string[]): Promise<{ ms: number }>;
  /** Runs a loaded model on a float32 input of its prepared shape. */
  run(name: string, input: Float32Array): Promise<{ outputs: Record<string, Float32Array>; ms: number }>;
  /** Stops the worker and frees the GPU device. */
  close(): void;
}

/** Starts the WebGPU worker; rejects when the browser has no WebGPU adapter. */
export function openGpuModels(): Promise<GpuModels>;
