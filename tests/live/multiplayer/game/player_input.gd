extends Node
## Client-authority state of a player (its authority is set by the player's _enter_tree).

var direction := Vector2.ZERO
var jumps := 0
