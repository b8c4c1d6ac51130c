/**
 * Traditional → simplified Chinese for recognised text, as upstream converts
 * Paraformer's hypothesis with `zhconv.convert(text, "zh-cn")`. Uses OpenCC's
 * maintained tables (opencc-js): Taiwan and Hong Kong variant forms first,
 * then standard traditional, to mainland simplified. Loaded on first use.
 */
type Convert = (text: string) => string;

let converter: Promise<Convert> | null = null;

async function load(): Promise<Convert> {
  const { Converter } = await import('opencc-js/t2cn');
  const fromTw = Converter({ from: 'tw', to: 'cn' });
  const fromHk = Converter({ from: 'hk', to: 'cn' });
  return (text) => fromHk(fromTw(text));
}

export async function toSimplified(text: string): Promise<string> {
  converter ??= load();
  return (await converter)(text);
}
