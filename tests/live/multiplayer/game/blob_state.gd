extends Node
## A static synchronized node holding `size` bytes: shows how SYNC packets are split at
## max_sync_packet_size (1350) and that one state larger than that is never sent.

@export var size := 0
var data := PackedByteArray()


func _ready() -> void:
	data.resize(size)
	for i in size:
		data[i] = i % 251
