// How a call to the embeddings provider fails (embeddings-provider.ts):
// 502 `embeddings-provider-failed` (remote-embed.ts). A module of its own so
// that the routes can recognise it without loading the provider's HTTP
// client (hpagent), which server.ts loads only when a provider is configured.
export class ProviderFailure extends Error {
  constructor(
    message: string,
    /** What the provider said, for the log only. */
    readonly logDetail?: string,
  ) {
    super(message);
    this.name = 'ProviderFailure';
  }
}
