extends Node
## 300 RPC methods, so that ids above 255 take the 16-bit method id form.

@rpc
func r000(x) -> void:
	get_parent().set_meta("last", [0, x])

@rpc
func r001(x) -> void:
	get_parent().set_meta("last", [1, x])

@rpc
func r002(x) -> void:
	get_parent().set_meta("last", [2, x])

@rpc
func r003(x) -> void:
	get_parent().set_meta("last", [3, x])

@rpc
func r004(x) -> void:
	get_parent().set_meta("last", [4, x])

@rpc
func r005(x) -> void:
	get_parent().set_meta("last", [5, x])

@rpc
func r006(x) -> void:
	get_parent().set_meta("last", [6, x])

@rpc
func r007(x) -> void:
	get_parent().set_meta("last", [7, x])

@rpc
func r008(x) -> void:
	get_parent().set_meta("last", [8, x])

@rpc
func r009(x) -> void:
	get_parent().set_meta("last", [9, x])

@rpc
func r010(x) -> void:
	get_parent().set_meta("last", [10, x])

@rpc
func r011(x) -> void:
	get_parent().set_meta("last", [11, x])

@rpc
func r012(x) -> void:
	get_parent().set_meta("last", [12, x])

@rpc
func r013(x) -> void:
	get_parent().set_meta("last", [13, x])

@rpc
func r014(x) -> void:
	get_parent().set_meta("last", [14, x])

@rpc
func r015(x) -> void:
	get_parent().set_meta("last", [15, x])

@rpc
func r016(x) -> void:
	get_parent().set_meta("last", [16, x])

@rpc
func r017(x) -> void:
	get_parent().set_meta("last", [17, x])

@rpc
func r018(x) -> void:
	get_parent().set_meta("last", [18, x])

@rpc
func r019(x) -> void:
	get_parent().set_meta("last", [19, x])

@rpc
func r020(x) -> void:
	get_parent().set_meta("last", [20, x])

@rpc
func r021(x) -> void:
	get_parent().set_meta("last", [21, x])

@rpc
func r022(x) -> void:
	get_parent().set_meta("last", [22, x])

@rpc
func r023(x) -> void:
	get_parent().set_meta("last", [23, x])

@rpc
func r024(x) -> void:
	get_parent().set_meta("last", [24, x])

@rpc
func r025(x) -> void:
	get_parent().set_meta("last", [25, x])

@rpc
func r026(x) -> void:
	get_parent().set_meta("last", [26, x])

@rpc
func r027(x) -> void:
	get_parent().set_meta("last", [27, x])

@rpc
func r028(x) -> void:
	get_parent().set_meta("last", [28, x])

@rpc
func r029(x) -> void:
	get_parent().set_meta("last", [29, x])

@rpc
func r030(x) -> void:
	get_parent().set_meta("last", [30, x])

@rpc
func r031(x) -> void:
	get_parent().set_meta("last", [31, x])

@rpc
func r032(x) -> void:
	get_parent().set_meta("last", [32, x])

@rpc
func r033(x) -> void:
	get_parent().set_meta("last", [33, x])

@rpc
func r034(x) -> void:
	get_parent().set_meta("last", [34, x])

@rpc
func r035(x) -> void:
	get_parent().set_meta("last", [35, x])

@rpc
func r036(x) -> void:
	get_parent().set_meta("last", [36, x])

@rpc
func r037(x) -> void:
	get_parent().set_meta("last", [37, x])

@rpc
func r038(x) -> void:
	get_parent().set_meta("last", [38, x])

@rpc
func r039(x) -> void:
	get_parent().set_meta("last", [39, x])

@rpc
func r040(x) -> void:
	get_parent().set_meta("last", [40, x])

@rpc
func r041(x) -> void:
	get_parent().set_meta("last", [41, x])

@rpc
func r042(x) -> void:
	get_parent().set_meta("last", [42, x])

@rpc
func r043(x) -> void:
	get_parent().set_meta("last", [43, x])

@rpc
func r044(x) -> void:
	get_parent().set_meta("last", [44, x])

@rpc
func r045(x) -> void:
	get_parent().set_meta("last", [45, x])

@rpc
func r046(x) -> void:
	get_parent().set_meta("last", [46, x])

@rpc
func r047(x) -> void:
	get_parent().set_meta("last", [47, x])

@rpc
func r048(x) -> void:
	get_parent().set_meta("last", [48, x])

@rpc
func r049(x) -> void:
	get_parent().set_meta("last", [49, x])

@rpc
func r050(x) -> void:
	get_parent().set_meta("last", [50, x])

@rpc
func r051(x) -> void:
	get_parent().set_meta("last", [51, x])

@rpc
func r052(x) -> void:
	get_parent().set_meta("last", [52, x])

@rpc
func r053(x) -> void:
	get_parent().set_meta("last", [53, x])

@rpc
func r054(x) -> void:
	get_parent().set_meta("last", [54, x])

@rpc
func r055(x) -> void:
	get_parent().set_meta("last", [55, x])

@rpc
func r056(x) -> void:
	get_parent().set_meta("last", [56, x])

@rpc
func r057(x) -> void:
	get_parent().set_meta("last", [57, x])

@rpc
func r058(x) -> void:
	get_parent().set_meta("last", [58, x])

@rpc
func r059(x) -> void:
	get_parent().set_meta("last", [59, x])

@rpc
func r060(x) -> void:
	get_parent().set_meta("last", [60, x])

@rpc
func r061(x) -> void:
	get_parent().set_meta("last", [61, x])

@rpc
func r062(x) -> void:
	get_parent().set_meta("last", [62, x])

@rpc
func r063(x) -> void:
	get_parent().set_meta("last", [63, x])

@rpc
func r064(x) -> void:
	get_parent().set_meta("last", [64, x])

@rpc
func r065(x) -> void:
	get_parent().set_meta("last", [65, x])

@rpc
func r066(x) -> void:
	get_parent().set_meta("last", [66, x])

@rpc
func r067(x) -> void:
	get_parent().set_meta("last", [67, x])

@rpc
func r068(x) -> void:
	get_parent().set_meta("last", [68, x])

@rpc
func r069(x) -> void:
	get_parent().set_meta("last", [69, x])

@rpc
func r070(x) -> void:
	get_parent().set_meta("last", [70, x])

@rpc
func r071(x) -> void:
	get_parent().set_meta("last", [71, x])

@rpc
func r072(x) -> void:
	get_parent().set_meta("last", [72, x])

@rpc
func r073(x) -> void:
	get_parent().set_meta("last", [73, x])

@rpc
func r074(x) -> void:
	get_parent().set_meta("last", [74, x])

@rpc
func r075(x) -> void:
	get_parent().set_meta("last", [75, x])

@rpc
func r076(x) -> void:
	get_parent().set_meta("last", [76, x])

@rpc
func r077(x) -> void:
	get_parent().set_meta("last", [77, x])

@rpc
func r078(x) -> void:
	get_parent().set_meta("last", [78, x])

@rpc
func r079(x) -> void:
	get_parent().set_meta("last", [79, x])

@rpc
func r080(x) -> void:
	get_parent().set_meta("last", [80, x])

@rpc
func r081(x) -> void:
	get_parent().set_meta("last", [81, x])

@rpc
func r082(x) -> void:
	get_parent().set_meta("last", [82, x])

@rpc
func r083(x) -> void:
	get_parent().set_meta("last", [83, x])

@rpc
func r084(x) -> void:
	get_parent().set_meta("last", [84, x])

@rpc
func r085(x) -> void:
	get_parent().set_meta("last", [85, x])

@rpc
func r086(x) -> void:
	get_parent().set_meta("last", [86, x])

@rpc
func r087(x) -> void:
	get_parent().set_meta("last", [87, x])

@rpc
func r088(x) -> void:
	get_parent().set_meta("last", [88, x])

@rpc
func r089(x) -> void:
	get_parent().set_meta("last", [89, x])

@rpc
func r090(x) -> void:
	get_parent().set_meta("last", [90, x])

@rpc
func r091(x) -> void:
	get_parent().set_meta("last", [91, x])

@rpc
func r092(x) -> void:
	get_parent().set_meta("last", [92, x])

@rpc
func r093(x) -> void:
	get_parent().set_meta("last", [93, x])

@rpc
func r094(x) -> void:
	get_parent().set_meta("last", [94, x])

@rpc
func r095(x) -> void:
	get_parent().set_meta("last", [95, x])

@rpc
func r096(x) -> void:
	get_parent().set_meta("last", [96, x])

@rpc
func r097(x) -> void:
	get_parent().set_meta("last", [97, x])

@rpc
func r098(x) -> void:
	get_parent().set_meta("last", [98, x])

@rpc
func r099(x) -> void:
	get_parent().set_meta("last", [99, x])

@rpc
func r100(x) -> void:
	get_parent().set_meta("last", [100, x])

@rpc
func r101(x) -> void:
	get_parent().set_meta("last", [101, x])

@rpc
func r102(x) -> void:
	get_parent().set_meta("last", [102, x])

@rpc
func r103(x) -> void:
	get_parent().set_meta("last", [103, x])

@rpc
func r104(x) -> void:
	get_parent().set_meta("last", [104, x])

@rpc
func r105(x) -> void:
	get_parent().set_meta("last", [105, x])

@rpc
func r106(x) -> void:
	get_parent().set_meta("last", [106, x])

@rpc
func r107(x) -> void:
	get_parent().set_meta("last", [107, x])

@rpc
func r108(x) -> void:
	get_parent().set_meta("last", [108, x])

@rpc
func r109(x) -> void:
	get_parent().set_meta("last", [109, x])

@rpc
func r110(x) -> void:
	get_parent().set_meta("last", [110, x])

@rpc
func r111(x) -> void:
	get_parent().set_meta("last", [111, x])

@rpc
func r112(x) -> void:
	get_parent().set_meta("last", [112, x])

@rpc
func r113(x) -> void:
	get_parent().set_meta("last", [113, x])

@rpc
func r114(x) -> void:
	get_parent().set_meta("last", [114, x])

@rpc
func r115(x) -> void:
	get_parent().set_meta("last", [115, x])

@rpc
func r116(x) -> void:
	get_parent().set_meta("last", [116, x])

@rpc
func r117(x) -> void:
	get_parent().set_meta("last", [117, x])

@rpc
func r118(x) -> void:
	get_parent().set_meta("last", [118, x])

@rpc
func r119(x) -> void:
	get_parent().set_meta("last", [119, x])

@rpc
func r120(x) -> void:
	get_parent().set_meta("last", [120, x])

@rpc
func r121(x) -> void:
	get_parent().set_meta("last", [121, x])

@rpc
func r122(x) -> void:
	get_parent().set_meta("last", [122, x])

@rpc
func r123(x) -> void:
	get_parent().set_meta("last", [123, x])

@rpc
func r124(x) -> void:
	get_parent().set_meta("last", [124, x])

@rpc
func r125(x) -> void:
	get_parent().set_meta("last", [125, x])

@rpc
func r126(x) -> void:
	get_parent().set_meta("last", [126, x])

@rpc
func r127(x) -> void:
	get_parent().set_meta("last", [127, x])

@rpc
func r128(x) -> void:
	get_parent().set_meta("last", [128, x])

@rpc
func r129(x) -> void:
	get_parent().set_meta("last", [129, x])

@rpc
func r130(x) -> void:
	get_parent().set_meta("last", [130, x])

@rpc
func r131(x) -> void:
	get_parent().set_meta("last", [131, x])

@rpc
func r132(x) -> void:
	get_parent().set_meta("last", [132, x])

@rpc
func r133(x) -> void:
	get_parent().set_meta("last", [133, x])

@rpc
func r134(x) -> void:
	get_parent().set_meta("last", [134, x])

@rpc
func r135(x) -> void:
	get_parent().set_meta("last", [135, x])

@rpc
func r136(x) -> void:
	get_parent().set_meta("last", [136, x])

@rpc
func r137(x) -> void:
	get_parent().set_meta("last", [137, x])

@rpc
func r138(x) -> void:
	get_parent().set_meta("last", [138, x])

@rpc
func r139(x) -> void:
	get_parent().set_meta("last", [139, x])

@rpc
func r140(x) -> void:
	get_parent().set_meta("last", [140, x])

@rpc
func r141(x) -> void:
	get_parent().set_meta("last", [141, x])

@rpc
func r142(x) -> void:
	get_parent().set_meta("last", [142, x])

@rpc
func r143(x) -> void:
	get_parent().set_meta("last", [143, x])

@rpc
func r144(x) -> void:
	get_parent().set_meta("last", [144, x])

@rpc
func r145(x) -> void:
	get_parent().set_meta("last", [145, x])

@rpc
func r146(x) -> void:
	get_parent().set_meta("last", [146, x])

@rpc
func r147(x) -> void:
	get_parent().set_meta("last", [147, x])

@rpc
func r148(x) -> void:
	get_parent().set_meta("last", [148, x])

@rpc
func r149(x) -> void:
	get_parent().set_meta("last", [149, x])

@rpc
func r150(x) -> void:
	get_parent().set_meta("last", [150, x])

@rpc
func r151(x) -> void:
	get_parent().set_meta("last", [151, x])

@rpc
func r152(x) -> void:
	get_parent().set_meta("last", [152, x])

@rpc
func r153(x) -> void:
	get_parent().set_meta("last", [153, x])

@rpc
func r154(x) -> void:
	get_parent().set_meta("last", [154, x])

@rpc
func r155(x) -> void:
	get_parent().set_meta("last", [155, x])

@rpc
func r156(x) -> void:
	get_parent().set_meta("last", [156, x])

@rpc
func r157(x) -> void:
	get_parent().set_meta("last", [157, x])

@rpc
func r158(x) -> void:
	get_parent().set_meta("last", [158, x])

@rpc
func r159(x) -> void:
	get_parent().set_meta("last", [159, x])

@rpc
func r160(x) -> void:
	get_parent().set_meta("last", [160, x])

@rpc
func r161(x) -> void:
	get_parent().set_meta("last", [161, x])

@rpc
func r162(x) -> void:
	get_parent().set_meta("last", [162, x])

@rpc
func r163(x) -> void:
	get_parent().set_meta("last", [163, x])

@rpc
func r164(x) -> void:
	get_parent().set_meta("last", [164, x])

@rpc
func r165(x) -> void:
	get_parent().set_meta("last", [165, x])

@rpc
func r166(x) -> void:
	get_parent().set_meta("last", [166, x])

@rpc
func r167(x) -> void:
	get_parent().set_meta("last", [167, x])

@rpc
func r168(x) -> void:
	get_parent().set_meta("last", [168, x])

@rpc
func r169(x) -> void:
	get_parent().set_meta("last", [169, x])

@rpc
func r170(x) -> void:
	get_parent().set_meta("last", [170, x])

@rpc
func r171(x) -> void:
	get_parent().set_meta("last", [171, x])

@rpc
func r172(x) -> void:
	get_parent().set_meta("last", [172, x])

@rpc
func r173(x) -> void:
	get_parent().set_meta("last", [173, x])

@rpc
func r174(x) -> void:
	get_parent().set_meta("last", [174, x])

@rpc
func r175(x) -> void:
	get_parent().set_meta("last", [175, x])

@rpc
func r176(x) -> void:
	get_parent().set_meta("last", [176, x])

@rpc
func r177(x) -> void:
	get_parent().set_meta("last", [177, x])

@rpc
func r178(x) -> void:
	get_parent().set_meta("last", [178, x])

@rpc
func r179(x) -> void:
	get_parent().set_meta("last", [179, x])

@rpc
func r180(x) -> void:
	get_parent().set_meta("last", [180, x])

@rpc
func r181(x) -> void:
	get_parent().set_meta("last", [181, x])

@rpc
func r182(x) -> void:
	get_parent().set_meta("last", [182, x])

@rpc
func r183(x) -> void:
	get_parent().set_meta("last", [183, x])

@rpc
func r184(x) -> void:
	get_parent().set_meta("last", [184, x])

@rpc
func r185(x) -> void:
	get_parent().set_meta("last", [185, x])

@rpc
func r186(x) -> void:
	get_parent().set_meta("last", [186, x])

@rpc
func r187(x) -> void:
	get_parent().set_meta("last", [187, x])

@rpc
func r188(x) -> void:
	get_parent().set_meta("last", [188, x])

@rpc
func r189(x) -> void:
	get_parent().set_meta("last", [189, x])

@rpc
func r190(x) -> void:
	get_parent().set_meta("last", [190, x])

@rpc
func r191(x) -> void:
	get_parent().set_meta("last", [191, x])

@rpc
func r192(x) -> void:
	get_parent().set_meta("last", [192, x])

@rpc
func r193(x) -> void:
	get_parent().set_meta("last", [193, x])

@rpc
func r194(x) -> void:
	get_parent().set_meta("last", [194, x])

@rpc
func r195(x) -> void:
	get_parent().set_meta("last", [195, x])

@rpc
func r196(x) -> void:
	get_parent().set_meta("last", [196, x])

@rpc
func r197(x) -> void:
	get_parent().set_meta("last", [197, x])

@rpc
func r198(x) -> void:
	get_parent().set_meta("last", [198, x])

@rpc
func r199(x) -> void:
	get_parent().set_meta("last", [199, x])

@rpc
func r200(x) -> void:
	get_parent().set_meta("last", [200, x])

@rpc
func r201(x) -> void:
	get_parent().set_meta("last", [201, x])

@rpc
func r202(x) -> void:
	get_parent().set_meta("last", [202, x])

@rpc
func r203(x) -> void:
	get_parent().set_meta("last", [203, x])

@rpc
func r204(x) -> void:
	get_parent().set_meta("last", [204, x])

@rpc
func r205(x) -> void:
	get_parent().set_meta("last", [205, x])

@rpc
func r206(x) -> void:
	get_parent().set_meta("last", [206, x])

@rpc
func r207(x) -> void:
	get_parent().set_meta("last", [207, x])

@rpc
func r208(x) -> void:
	get_parent().set_meta("last", [208, x])

@rpc
func r209(x) -> void:
	get_parent().set_meta("last", [209, x])

@rpc
func r210(x) -> void:
	get_parent().set_meta("last", [210, x])

@rpc
func r211(x) -> void:
	get_parent().set_meta("last", [211, x])

@rpc
func r212(x) -> void:
	get_parent().set_meta("last", [212, x])

@rpc
func r213(x) -> void:
	get_parent().set_meta("last", [213, x])

@rpc
func r214(x) -> void:
	get_parent().set_meta("last", [214, x])

@rpc
func r215(x) -> void:
	get_parent().set_meta("last", [215, x])

@rpc
func r216(x) -> void:
	get_parent().set_meta("last", [216, x])

@rpc
func r217(x) -> void:
	get_parent().set_meta("last", [217, x])

@rpc
func r218(x) -> void:
	get_parent().set_meta("last", [218, x])

@rpc
func r219(x) -> void:
	get_parent().set_meta("last", [219, x])

@rpc
func r220(x) -> void:
	get_parent().set_meta("last", [220, x])

@rpc
func r221(x) -> void:
	get_parent().set_meta("last", [221, x])

@rpc
func r222(x) -> void:
	get_parent().set_meta("last", [222, x])

@rpc
func r223(x) -> void:
	get_parent().set_meta("last", [223, x])

@rpc
func r224(x) -> void:
	get_parent().set_meta("last", [224, x])

@rpc
func r225(x) -> void:
	get_parent().set_meta("last", [225, x])

@rpc
func r226(x) -> void:
	get_parent().set_meta("last", [226, x])

@rpc
func r227(x) -> void:
	get_parent().set_meta("last", [227, x])

@rpc
func r228(x) -> void:
	get_parent().set_meta("last", [228, x])

@rpc
func r229(x) -> void:
	get_parent().set_meta("last", [229, x])

@rpc
func r230(x) -> void:
	get_parent().set_meta("last", [230, x])

@rpc
func r231(x) -> void:
	get_parent().set_meta("last", [231, x])

@rpc
func r232(x) -> void:
	get_parent().set_meta("last", [232, x])

@rpc
func r233(x) -> void:
	get_parent().set_meta("last", [233, x])

@rpc
func r234(x) -> void:
	get_parent().set_meta("last", [234, x])

@rpc
func r235(x) -> void:
	get_parent().set_meta("last", [235, x])

@rpc
func r236(x) -> void:
	get_parent().set_meta("last", [236, x])

@rpc
func r237(x) -> void:
	get_parent().set_meta("last", [237, x])

@rpc
func r238(x) -> void:
	get_parent().set_meta("last", [238, x])

@rpc
func r239(x) -> void:
	get_parent().set_meta("last", [239, x])

@rpc
func r240(x) -> void:
	get_parent().set_meta("last", [240, x])

@rpc
func r241(x) -> void:
	get_parent().set_meta("last", [241, x])

@rpc
func r242(x) -> void:
	get_parent().set_meta("last", [242, x])

@rpc
func r243(x) -> void:
	get_parent().set_meta("last", [243, x])

@rpc
func r244(x) -> void:
	get_parent().set_meta("last", [244, x])

@rpc
func r245(x) -> void:
	get_parent().set_meta("last", [245, x])

@rpc
func r246(x) -> void:
	get_parent().set_meta("last", [246, x])

@rpc
func r247(x) -> void:
	get_parent().set_meta("last", [247, x])

@rpc
func r248(x) -> void:
	get_parent().set_meta("last", [248, x])

@rpc
func r249(x) -> void:
	get_parent().set_meta("last", [249, x])

@rpc
func r250(x) -> void:
	get_parent().set_meta("last", [250, x])

@rpc
func r251(x) -> void:
	get_parent().set_meta("last", [251, x])

@rpc
func r252(x) -> void:
	get_parent().set_meta("last", [252, x])

@rpc
func r253(x) -> void:
	get_parent().set_meta("last", [253, x])

@rpc
func r254(x) -> void:
	get_parent().set_meta("last", [254, x])

@rpc
func r255(x) -> void:
	get_parent().set_meta("last", [255, x])

@rpc
func r256(x) -> void:
	get_parent().set_meta("last", [256, x])

@rpc
func r257(x) -> void:
	get_parent().set_meta("last", [257, x])

@rpc
func r258(x) -> void:
	get_parent().set_meta("last", [258, x])

@rpc
func r259(x) -> void:
	get_parent().set_meta("last", [259, x])

@rpc
func r260(x) -> void:
	get_parent().set_meta("last", [260, x])

@rpc
func r261(x) -> void:
	get_parent().set_meta("last", [261, x])

@rpc
func r262(x) -> void:
	get_parent().set_meta("last", [262, x])

@rpc
func r263(x) -> void:
	get_parent().set_meta("last", [263, x])

@rpc
func r264(x) -> void:
	get_parent().set_meta("last", [264, x])

@rpc
func r265(x) -> void:
	get_parent().set_meta("last", [265, x])

@rpc
func r266(x) -> void:
	get_parent().set_meta("last", [266, x])

@rpc
func r267(x) -> void:
	get_parent().set_meta("last", [267, x])

@rpc
func r268(x) -> void:
	get_parent().set_meta("last", [268, x])

@rpc
func r269(x) -> void:
	get_parent().set_meta("last", [269, x])

@rpc
func r270(x) -> void:
	get_parent().set_meta("last", [270, x])

@rpc
func r271(x) -> void:
	get_parent().set_meta("last", [271, x])

@rpc
func r272(x) -> void:
	get_parent().set_meta("last", [272, x])

@rpc
func r273(x) -> void:
	get_parent().set_meta("last", [273, x])

@rpc
func r274(x) -> void:
	get_parent().set_meta("last", [274, x])

@rpc
func r275(x) -> void:
	get_parent().set_meta("last", [275, x])

@rpc
func r276(x) -> void:
	get_parent().set_meta("last", [276, x])

@rpc
func r277(x) -> void:
	get_parent().set_meta("last", [277, x])

@rpc
func r278(x) -> void:
	get_parent().set_meta("last", [278, x])

@rpc
func r279(x) -> void:
	get_parent().set_meta("last", [279, x])

@rpc
func r280(x) -> void:
	get_parent().set_meta("last", [280, x])

@rpc
func r281(x) -> void:
	get_parent().set_meta("last", [281, x])

@rpc
func r282(x) -> void:
	get_parent().set_meta("last", [282, x])

@rpc
func r283(x) -> void:
	get_parent().set_meta("last", [283, x])

@rpc
func r284(x) -> void:
	get_parent().set_meta("last", [284, x])

@rpc
func r285(x) -> void:
	get_parent().set_meta("last", [285, x])

@rpc
func r286(x) -> void:
	get_parent().set_meta("last", [286, x])

@rpc
func r287(x) -> void:
	get_parent().set_meta("last", [287, x])

@rpc
func r288(x) -> void:
	get_parent().set_meta("last", [288, x])

@rpc
func r289(x) -> void:
	get_parent().set_meta("last", [289, x])

@rpc
func r290(x) -> void:
	get_parent().set_meta("last", [290, x])

@rpc
func r291(x) -> void:
	get_parent().set_meta("last", [291, x])

@rpc
func r292(x) -> void:
	get_parent().set_meta("last", [292, x])

@rpc
func r293(x) -> void:
	get_parent().set_meta("last", [293, x])

@rpc
func r294(x) -> void:
	get_parent().set_meta("last", [294, x])

@rpc
func r295(x) -> void:
	get_parent().set_meta("last", [295, x])

@rpc
func r296(x) -> void:
	get_parent().set_meta("last", [296, x])

@rpc
func r297(x) -> void:
	get_parent().set_meta("last", [297, x])

@rpc
func r298(x) -> void:
	get_parent().set_meta("last", [298, x])

@rpc
func r299(x) -> void:
	get_parent().set_meta("last", [299, x])
