// A code-mode program as a model writes it after reading the surface: it
// imports the generated modules and calls tools of two servers, the first
// two concurrently. Its `export default` is the run's result.
import { add, echo } from "./mcp/echo.ts";
import { create_entities, read_graph } from "./mcp/memory.ts";

const [greeting, sum] = await Promise.all([
  echo({ text: "hello from a program" }),
  add({ a: 20, b: 22 }),
]);
await create_entities({
  entities: [{ name: "demo", entityType: "run", observations: [greeting.text, sum.text] }],
});
const graph = await read_graph({});
console.log(`the graph holds ${graph.text.length} characters of JSON`);

export default { greeting: greeting.text, sum: sum.text, graph: graph.structuredContent };
