export function renderMatrixDoc(_r: unknown, _o: { linkBase: string }): string {
  return '';
}
