extends Node2D
## One entity on screen. apply_to_nodes() sets position (interpolated), health, nickname and
## score by these names (the decoder's node_properties).

var health := 100
var nickname := ""
var score := 0
var is_avatar := false
var is_me := false


func _draw() -> void:
	var colour := Color.WHITE if is_me else (Color.CORAL if is_avatar else Color.OLIVE_DRAB)
	draw_circle(Vector2.ZERO, 12.0, colour)
	draw_rect(Rect2(-12, -18, 24.0 * health / 100.0, 3), Color.LIME_GREEN)
