extends Node
## A static (never spawned) synchronized node: path-based net ids (0x80000000 | cache id).

var tick := 0
var score := 0
