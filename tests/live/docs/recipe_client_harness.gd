# Runs the GDScript client of docs/recipes.md ("Serve Godot clients") headless: the client
# script (its path is the first user argument) is added as a node; the tree quits once the
# client has joined and the server has closed the connection.
extends SceneTree

var client: Node

func _initialize() -> void:
	client = load(OS.get_cmdline_user_args()[0]).new()
	root.add_child(client)

func _process(_delta: float) -> bool:
	var status: int = client.tcp.get_status()
	return client.has_meta("joined") and status != StreamPeerTCP.STATUS_CONNECTED
