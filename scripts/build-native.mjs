console.log("native build placeholder")
