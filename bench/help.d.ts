/** A command's leading doc comment as text (bench/vite.config.ts, helpFromDocComment). */
declare module '*?help' {
  const help: string;
  export default help;
}
