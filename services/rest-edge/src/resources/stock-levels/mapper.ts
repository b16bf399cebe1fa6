/**
 * The members of one feed page's JSON array (`[{"sku":...,"stock":...},...]`, as the stock
 * service writes it for bulk readers), without the brackets: the streamed body is `{"data":[` +
 * the pages' members joined by commas + `]}`. Empty for an empty page.
 */
export function stockLevelMembers(itemsJson: string): string {
  const text = itemsJson.trim();
  if (!text.startsWith('[') || !text.endsWith(']')) throw new Error('The stock feed page is not a JSON array');
  return text.slice(1, -1).trim();
}
