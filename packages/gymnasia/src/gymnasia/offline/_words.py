"""What words mean to the offline model: a lexicon of concepts in es, pt and en.

``tag`` turns tokens into items: each word (or phrase of up to five words, longest first:
"grasa corporal", "café da manhã", "if there is none") is looked up, accent- and
case-insensitively, and carries the concepts it can stand for. A word may stand for several
("pecho" is a girth and a muscle group; "comida" is lunch and food); the domain parsers pick
the one their context needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from ..catalog import fold
from ._lex import DateLiteral, Mark, Number, Token, Word

ConceptKind = Literal[
    "verb",  # save, read, list, delete, search, create, suggest, eat
    "ask",  # an interrogative: qué, cuánto, what, how much ...
    "neg",  # no, não, don't, ni, nem ...
    "cond",  # a fallback: "si no existe", "if there is none", "otherwise" ...
    "field",  # a measurement field: weight_kg, waist_cm ...
    "meal",  # a meal id, or "?" for a word that could be several (snack, lanche)
    "day",  # a relative day: "0" today, "-1" yesterday, "1" tomorrow
    "month",  # "1".."12"
    "unit",  # kg, lb, g, cm, m, in, pct, kcal, s, min, x, day, week
    "noun",  # note, food, exercise, routine, measurement, meals, feature
    "last",  # "the last (N days)"
    "category",  # a routine category: strength, hypertrophy, cardio, flexibility
    "muscle",  # a muscle group of the exercise table
    "equipment",  # equipment of the exercise table
    "food_category",  # a category of the food table
    "nutrient",  # protein, calories, carbs, fat, fiber
    "compare",  # "max" (at most, under ...), "min" (at least, over ...)
    "sort",  # "desc" (rich in ...), "asc" (low in ...), "by" (sorted by ...)
    "zero_load",  # bodyweight, no weight: a load of 0 kg
    "rest",  # rest (between series)
    "called",  # called, named, llamada, chamada
    "filler",  # words that only glue a phrase ("por la mañana")
    "delta",  # a change, not a measured value: "he bajado", "lost", "ganhei"
    "goal",  # a wish, not a measured value: objetivo, meta, goal, target
    "wish",  # a wish or a hedge, not a fact: quiero, debería, espero, want, should, acho
    "other",  # not the user's own measure: a lift, another person, a pet, an object, a purchase
    "if",  # a condition: si, se, if, unless (a fallback "si no ..." is ``cond``)
    "qualifier",  # what changes an amount the parser does not model: "multiple", "part",
    # "side" (a load per side, arm or dumbbell), "bar" (plus or without the bar; a load
    # "including the bar" is the total, as stored)
    "weekday",  # "0" Monday .. "6" Sunday
]
Concept = tuple[ConceptKind, str]
_GUARDS: Final = frozenset({"wish", "other", "if", "qualifier"})

_LEXICON: Final[tuple[tuple[ConceptKind, str, str], ...]] = (
    # -- actions ------------------------------------------------------------------------------
    (
        "verb",
        "save",
        (
            "guarda|guardar|guarde|guardes|guardame|guarda-me|registra|registrar|registre|registres"
            "|registar|registe|anota|anotar|anote|anotes|apunta|apuntar|apunte|apuntes|salva|salvar"
            "|salve|grava|gravar|grave|save|record|log|store|keep|set|actualiza|actualizar|atualiza"
            "|atualizar|atualize|cambia|cambiar|cambie|cambies|altera|alterar|altere|update|change"
            "|pon|poner|coloca|anade|anadir|agrega|agregar|adiciona|adicionar|adicione|inclui"
            "|incluir|inclua|add|put|crees|cree|crie|create|crea|cria|make|guardas|salvas|registras"
            "|anotas|apuntas|escribe|escriba|escreve|escreva|write|note down|jot down"
        ),
    ),
    (
        "verb",
        "read",
        (
            "consulta|consultar|consulte|mira|mirar|mire|lee|leer|lea|leia|le|ler|ver|ve|veja|vea"
            "|muestra|muestrame|mostrar|mostra|mostre|mostrame|mostra-me|ensena|ensename|dime|dame"
            "|diz|diga|diga-me|look|look up|check|show|read|get|see|tell|tell me|display|recupera"
        ),
    ),
    ("verb", "list", "lista|listar|liste|listame|enumera|list|enumerate"),
    (
        "verb",
        "delete",
        (
            "borra|borrar|borre|borres|elimina|eliminar|elimine|quita|quitar|quite|apaga|apagar"
            "|apague|exclui|excluir|exclua|remove|remover|remova|delete|erase|forget|olvida|esquece"
            "|esqueca|descarta"
        ),
    ),
    (
        "verb",
        "search",
        (
            "busca|buscar|busque|buscame|encuentra|encontrar|encuentrame|encontra|encontre|procura"
            "|procurar|procure|search|find|look for|search for|sugiereme|recomienda|recomiendame"
            "|recomenda|recommend"
        ),
    ),
    ("verb", "suggest", "sugiere|sugerir|sugira|sugere|suggest|propon|propone|propose"),
    (
        "verb",
        "eat",
        (
            "comer|comi|comido|comiste|comimos|ate|eat|eaten|had|tome|tomei|bebi|desayune"
            "|cene|jantei|almocei|merende|desayunado|cenado|almorzado|merendado|jantado|almocado"
            "|comio|ceno|almorzo|merendo|bebio|comeu|jantou|almocou|lanchou|tomou"
            "|bebeu|drank"
        ),
    ),
    (
        "ask",
        "",
        (
            "que|qué|cuanto|cuanta|cuantos|cuantas|cual|cuales|quanto|quanta|quantos|quantas|qual"
            "|quais|what|what's|whats|how|how much|which|cuando|quando|when|hay|tengo|tenho"
            "|do i have|is there|are there"
        ),
    ),
    (
        "neg",
        "",
        (
            "no|nao|not|don't|dont|do not|never|nunca|ni|nem|nor|sin crear|without|didn't|didnt"
            "|doesn't|doesnt|isn't|isnt|wasn't|wasnt|haven't|havent|hasn't|hasnt|won't|wont"
            "|aren't|arent|weren't|werent|jamas|jamais|tampoco|tampouco|neither"
        ),
    ),
    (
        "if",
        "",
        (
            "si|se|if|unless|caso|en caso de|a menos que|salvo que|a no ser que|a nao ser que"
            "|in case|whether"
        ),
    ),
    (
        "wish",
        "",
        (
            "quiero|quieres|queria|quisiera|gustaria|me gustaria|deberia|deberias|espero|esperaba"
            "|ojala|necesito|quero|gostaria|deveria|devia|preciso|want|wants|wanted|would like"
            "|wish|hope|hoping|should|ought|need to|creo|creo que|supongo|quizas|quiza|tal vez"
            "|a lo mejor|acho|acho que|talvez|think|guess|maybe|perhaps|probably|probablemente"
            "|provavelmente|intento|intentare|vou tentar|try|trying|planeo|plan|pretendo"
        ),
    ),
    (
        "other",
        "lift",
        (
            "levante|levanto|levantar|levantado|levantei|levanta|levantou|lifted|lift|lifting"
            "|lifts|sentadilla|sentadillas|press|banca|muerto|militar|squat|squats|squatted"
            "|bench|benched|deadlift|deadlifts|deadlifted|supino|agachamento|agachamentos"
            "|levantamento|remo|curl|dominadas|row|rows|pulldown|zancadas|hip thrust"
        ),
    ),
    (
        "other",
        "someone",
        (
            "hermano|hermana|madre|padre|mama|novia|novio|esposa|esposo|marido|mujer|hijo|hija"
            "|amigo|amiga|abuelo|abuela|tio|tia|primo|prima|perro|perra|gato|gata|bebe|mascota"
            "|vecino|vecina|companero|companera|irmao|irma|mae|pai|namorada|namorado|filho|filha"
            "|avo|cachorro|cao|cadela|dele|dela|deles|delas|brother|sister|mother|mom|mum|father"
            "|dad|wife|husband|girlfriend|boyfriend|daughter|friend|dog|cat|baby|pet|his|her"
            "|their|neighbor|neighbour"
        ),
    ),
    (
        "other",
        "object",
        (
            "mochila|maleta|barra|disco|discos|saco|caja|paquete|pienso|mancuerna|mancuernas"
            "|kettlebell|halter|halteres|anilha|anilhas|caixa|pacote|racao|backpack"
            "|bag|suitcase|bar|barbell|dumbbell|dumbbells|plate|plates|box|package|parcel|luggage"
            "|compre|compro|comprar|comprado|comprei|comprou|bought|buy|buying|purchased|vendi"
            "|sold"
        ),
    ),
    (
        "other",
        "someone",
        (
            "son|sons|kid|kids|child|children|partner|pareja|nino|nina|ninos|ninas"
            "|crianca|criancas|menino|menina|sobrino|sobrina|sobrinho|sobrinha|parceiro|parceira"
            "|esposo|suegra|suegro|sogra|sogro|we|us|nosotros|nosotras|nos comimos|comimos"
            "|cenamos|almorzamos|desayunamos|comemos juntos|jantamos|almocamos|ellos|ellas|eles"
            "|elas|they|them|for him|for her|para ella|para ele|para ela|familia|family"
            "|everyone|everybody|invitados|convidados|guests|para todos|for all of us"
        ),
    ),
    (
        "qualifier",
        "multiple",
        (
            "doble|double|triple|twice|thrice|dobro|o dobro|el doble|the double|dos veces"
            "|duas vezes|tres veces|tres vezes|three times|two times|veces|vezes|times|racion"
            "|raciones|porcion"
            "|porciones|porcao|porcoes|serving|servings|portion|portions|helping|helpings"
            "|cada uno|cada una|cada um|cada uma|each|apiece|unidades|units"
            "|pieces|piezas|pedazos|pedacos"
        ),
    ),
    (
        "qualifier",
        "part",
        (
            "mitad|la mitad|metade|a metade|half|a half|halves|quarter|a quarter|un cuarto"
            "|un tercio|um terco|a third|third|tercio|terco|parte|partes|part of|some of|most of"
            "|la mayor parte|a maior parte|un poco de|um pouco de|a bit of|a little of"
            "|solo un poco|so um pouco"
            "|only a bit|sobras|leftovers|resto de|the rest of|nao terminei|no me lo termine"
            "|didn't finish|did not finish|comparti|compartimos|compartido|compartilhei"
            "|compartilhamos|dividi|dividimos|shared|split|sharing|left half|dejé la mitad"
        ),
    ),
    (
        "qualifier",
        "side",
        (
            "por lado|por cada lado|a cada lado|cada lado|de cada lado|em cada lado|per side"
            "|each side|a side|on each side|por brazo|por cada brazo|cada brazo|por braco"
            "|cada braco|per arm"
            "|each arm|por mano|cada mano|por mao|cada mao|per hand|each hand|in each hand"
            "|por mancuerna|cada mancuerna|per dumbbell|each dumbbell|por halter|cada halter"
            "|por pierna|cada pierna|por perna|cada perna|per leg|each leg|en cada mano"
            "|na cada mao|em cada mao"
        ),
    ),
    (
        "qualifier",
        "bar",
        (
            "mas la barra|mais a barra|plus the bar|plus bar|+ barra|+ bar|+ la barra|+ a barra"
            "|sin contar la barra|sem contar a barra|not counting the bar|without the bar"
            "|sin la barra|sem a barra|excluding the bar|bar not included|barra aparte"
            "|sin barra|sem barra|not including the bar|aparte de la barra|alem da barra"
            "|ademas de la barra|on top of the bar"
        ),
    ),
    (
        "weekday",
        "0",
        "lunes|segunda-feira|segunda feira|segunda|monday|mon",
    ),
    ("weekday", "1", "martes|terca-feira|terca feira|terca|tuesday|tue|tues"),
    ("weekday", "2", "miercoles|quarta-feira|quarta feira|quarta|wednesday|wed"),
    ("weekday", "3", "jueves|quinta-feira|quinta feira|quinta|thursday|thu|thurs"),
    ("weekday", "4", "viernes|sexta-feira|sexta feira|sexta|friday|fri"),
    ("weekday", "5", "sabado|saturday|sat"),
    ("weekday", "6", "domingo|sunday|sun"),
    (
        "cond",
        "",
        (
            "si no existe|si no hay|si no lo hay|si no hay nada|si no|en su defecto|de lo contrario"
            "|en caso contrario|se nao existir|se nao houver|se nao tiver|se nao|caso contrario"
            "|senao|if there is none|if there's none|if there is no record|if there isn't one"
            "|if there is nothing|if none|if not|if missing|otherwise|else|failing that"
        ),
    ),
    # -- measurements ---------------------------------------------------------------------------
    (
        "field",
        "weight_kg",
        (
            "peso|pesos|pese|pesei|pesaba|pesava|pesado|weight|weights|weigh|weighed|body weight"
            "|peso corporal|bascula|balanca|scale|the scale"
        ),
    ),
    (
        "field",
        "body_fat_pct",
        (
            "grasa corporal|grasa|porcentaje de grasa|gordura corporal|gordura"
            "|percentual de gordura|percentagem de gordura|body fat|bodyfat|fat percentage"
            "|body fat percentage"
        ),
    ),
    ("field", "neck_cm", "cuello|pescoco|neck"),
    ("field", "chest_cm", "pecho|torax|peito|chest"),
    ("field", "waist_cm", "cintura|waist"),
    ("field", "hips_cm", "cadera|caderas|quadril|quadris|anca|ancas|hip|hips"),
    ("field", "biceps_cm", "biceps|brazo|brazos|braco|bracos|arm|arms"),
    ("field", "quadriceps_cm", "cuadriceps|quadriceps|muslo|muslos|coxa|coxas|thigh|thighs"),
    (
        "field",
        "calf_cm",
        "gemelo|gemelos|pantorrilla|pantorrillas|panturrilha|panturrilhas|gemeo|gemeos|calf|calves",
    ),
    ("field", "height_cm", "altura|estatura|height|tall|mido|meco"),
    (
        "noun",
        "measurement",
        (
            "medida|medidas|medicion|mediciones|medicao|medicoes|measurement|measurements|registro"
            "|registros|registo|registos|records|stats"
        ),
    ),
    # -- days and dates -------------------------------------------------------------------------
    (
        "day",
        "0",
        "hoy|hoje|today|today's|esta manana|esta manha|this morning|tonight|esta noche",
    ),
    ("day", "-1", "ayer|ontem|yesterday|yesterday's|anoche|last night|ontem a noite"),
    (
        "day",
        "-2",
        (
            "anteayer|antier|antes de ayer|anteontem|antes de ontem|the day before yesterday"
            "|day before yesterday"
        ),
    ),
    ("day", "1", "manana|amanha|tomorrow"),
    (
        "filler",
        "",
        (
            "por la manana|de la manana|en la manana|pela manha|de manha|in the morning"
            "|por la tarde|de tarde|in the afternoon|a tarde"
        ),
    ),
    ("month", "1", "enero|janeiro|january|jan"),
    ("month", "2", "febrero|fevereiro|february|feb|fev"),
    ("month", "3", "marzo|marco|march|mar"),
    ("month", "4", "abril|april|apr|abr"),
    ("month", "5", "mayo|maio|may"),
    ("month", "6", "junio|junho|june|jun"),
    ("month", "7", "julio|julho|july|jul"),
    ("month", "8", "agosto|august|aug|ago"),
    ("month", "9", "septiembre|setiembre|setembro|september|sep|sept|set"),
    ("month", "10", "octubre|outubro|october|oct|out"),
    ("month", "11", "noviembre|novembro|november|nov"),
    ("month", "12", "diciembre|dezembro|december|dec|dic|dez"),
    ("last", "", "ultimos|ultimas|ultimo|ultima|last|past|previous|pasados|passados"),
    # -- units ----------------------------------------------------------------------------------
    (
        "unit",
        "kg",
        (
            "kg|kgs|kilo|kilos|kilogramo|kilogramos|quilo|quilos|quilograma|quilogramas|kilogram"
            "|kilograms|kilogramme|kilogrammes"
        ),
    ),
    ("unit", "lb", "lb|lbs|libra|libras|pound|pounds"),
    ("unit", "g", "g|gr|grs|gramo|gramos|grama|gramas|gram|grams|gramme|grammes"),
    (
        "unit",
        "cm",
        "cm|cms|centimetro|centimetros|centimeter|centimeters|centimetre|centimetres",
    ),
    ("unit", "m", "m|metro|metros|meter|meters|metre|metres"),
    ("unit", "in", 'in|inch|inches|pulgada|pulgadas|polegada|polegadas|"'),
    ("unit", "pct", "%|por ciento|por cento|percent|per cent|pct"),
    ("unit", "kcal", "kcal|kcals|calorias|caloria|calories|calorie|cal"),
    ("unit", "s", "s|seg|segs|segundo|segundos|second|seconds|sec|secs"),
    ("unit", "min", "min|mins|minuto|minutos|minute|minutes"),
    ("unit", "x", "x|\u00d7|por"),
    ("unit", "day", "dia|dias|day|days"),
    ("unit", "week", "semana|semanas|week|weeks"),
    ("unit", "series", "series|serie|sets|set|vueltas"),
    ("unit", "reps", "repeticiones|repeticion|repeticoes|repeticao|reps|rep|repetitions"),
    # -- memory, diet, training -----------------------------------------------------------------
    (
        "noun",
        "note",
        (
            "nota|notas|note|notes|memoria|memorias|memory|memories|recordatorio|recordatorios"
            "|lembrete|lembretes"
        ),
    ),
    ("noun", "feature", "funcion|funcionalidad|funcionalidade|feature|caracteristica"),
    ("noun", "food", "alimento|alimentos|food|foods|ingrediente|ingredientes|comida"),
    ("noun", "meals", "comidas|refeicao|refeicoes|meals|meal|dieta|diet|diario de comidas"),
    (
        "noun",
        "exercise",
        "ejercicio|ejercicios|exercicio|exercicios|exercise|exercises|movimiento|movimientos",
    ),
    (
        "noun",
        "routine",
        (
            "rutina|rutinas|rotina|rotinas|routine|routines|entrenamiento|entrenamientos|treino"
            "|treinos|workout|workouts"
        ),
    ),
    (
        "meal",
        "breakfast",
        "desayuno|desayunos|desayune|desayunado|cafe da manha|pequeno-almoco|breakfast",
    ),
    (
        "meal",
        "mid_morning",
        (
            "almuerzo|almuerzos|media manana|a media manana|lanche da manha|mid-morning snack"
            "|mid-morning|mid morning snack|mid morning|morning snack"
        ),
    ),
    ("meal", "lunch", "comida|almoco|almocos|almocei|almocado|lunch|lunches"),
    ("meal", "afternoon", "merienda|meriendas|merende|merendado|lanche da tarde|afternoon snack"),
    ("meal", "dinner", "cena|cenas|cene|cenado|jantar|janta|jantei|jantado|dinner|dinners|supper"),
    ("meal", "?", "snack|snacks|lanche|lanches|tentempie|picoteo"),
    ("category", "strength", "fuerza|forca|strength"),
    ("category", "hypertrophy", "hipertrofia|hypertrophy|musculacion|volumen"),
    ("category", "cardio", "cardio|cardiovascular|aerobico|aerobic"),
    (
        "category",
        "flexibility",
        "flexibilidad|flexibilidade|flexibility|estiramientos|alongamento|alongamentos|stretching",
    ),
    ("muscle", "chest", "pecho|pectorales|peito|peitoral|chest|pecs"),
    ("muscle", "back", "espalda|dorsales|costas|dorsais|back|lats"),
    ("muscle", "shoulders", "hombros|hombro|deltoides|ombros|ombro|shoulders|shoulder|delts"),
    ("muscle", "biceps", "biceps"),
    ("muscle", "triceps", "triceps"),
    ("muscle", "quadriceps", "cuadriceps|quadriceps|quads"),
    (
        "muscle",
        "hamstrings",
        "isquiotibiales|isquios|femorales|isquiotibiais|posteriores de coxa|hamstrings|hamstring",
    ),
    ("muscle", "glutes", "gluteos|gluteo|glutes|glute"),
    ("muscle", "calves", "gemelos|pantorrillas|panturrilhas|gemeos|calves|calf"),
    ("muscle", "core", "core|abdominales|abdomen|abdominais|abdominal|abs"),
    ("muscle", "cardio", "cardio"),
    ("muscle", "full_body", "cuerpo completo|cuerpo entero|corpo inteiro|corpo todo|full body"),
    ("equipment", "dumbbell", "mancuerna|mancuernas|halter|halteres|dumbbell|dumbbells"),
    ("equipment", "barbell", "barra|barbell|barbells"),
    ("equipment", "machine", "maquina|maquinas|machine|machines"),
    ("equipment", "cable", "polea|poleas|polia|polias|cabo|cabos|cable|cables"),
    ("equipment", "kettlebell", "kettlebell|kettlebells|pesa rusa|pesas rusas"),
    (
        "equipment",
        "band",
        (
            "banda|bandas|goma|gomas|elastico|elasticos|elastica|elasticas|band|bands"
            "|resistance band|resistance bands"
        ),
    ),
    (
        "equipment",
        "bodyweight",
        (
            "peso corporal|sin material|sin equipo|sem equipamento|sem material|bodyweight"
            "|body weight|no equipment"
        ),
    ),
    ("equipment", "cardio_machine", "maquina de cardio|cardio machine|cardio machines"),
    ("food_category", "cereals", "cereales|cereais|cereals|grains|cereal"),
    ("food_category", "dairy", "lacteos|laticinios|lacteos|dairy"),
    ("food_category", "drinks", "bebidas|drinks|beverages|bebida"),
    ("food_category", "eggs", "huevos|ovos|eggs"),
    ("food_category", "fats_oils", "aceites|oleos|oils|fats and oils|grasas y aceites"),
    ("food_category", "fish", "pescado|pescados|peixe|peixes|fish|marisco|mariscos|seafood"),
    ("food_category", "fruits", "fruta|frutas|fruit|fruits"),
    ("food_category", "legumes", "legumbres|leguminosas|legumes|pulses"),
    ("food_category", "meat", "carne|carnes|meat|meats"),
    ("food_category", "nuts_seeds", "frutos secos|semillas|sementes|nuts|seeds|oleaginosas"),
    ("food_category", "prepared", "preparados|platos preparados|pratos prontos|prepared"),
    ("food_category", "sweets", "dulces|doces|sweets|postres|sobremesas|desserts"),
    ("food_category", "vegetables", "verdura|verduras|vegetales|hortalizas|vegetables|veggies"),
    ("nutrient", "protein", "proteina|proteinas|protein|proteins"),
    ("nutrient", "calories", "calorias|caloria|kcal|calories|calorie|energia|energy"),
    ("nutrient", "carbs", "carbohidratos|hidratos|carboidratos|carbs|carbohydrates"),
    ("nutrient", "fat", "grasa|grasas|gordura|gorduras|fat|fats"),
    ("nutrient", "fiber", "fibra|fibras|fiber|fibre"),
    (
        "compare",
        "max",
        (
            "menos de|como mucho|como maximo|maximo|max|hasta|no mas de|under|below|less than"
            "|at most|up to|no maximo|menos que|abaixo de|ate"
        ),
    ),
    (
        "compare",
        "min",
        (
            "mas de|al menos|como minimo|minimo|min|por lo menos|over|above|more than|at least"
            "|pelo menos|no minimo|acima de|mais de|mas que|mais que"
        ),
    ),
    (
        "sort",
        "desc",
        (
            "ricos en|rico en|ricas en|rica en|ricos em|rico em|ricas em|rica em|rich in|high in"
            "|alto en|altos en|alta en|altas en|alto em|altos em|mucha|mucho|muita|muito|more"
            "|mas|mais|most|highest"
        ),
    ),
    (
        "sort",
        "asc",
        (
            "bajo en|bajos en|baja en|bajas en|pobres en|pobre en|baixo em|baixos em|baixa em"
            "|low in|low|lowest|least|poca|poco|pocas|pocos|pouca|pouco|poucas|poucos|menos|less"
            "|fewest|few"
        ),
    ),
    ("sort", "by", "ordenados por|ordenadas por|ordena por|ordenar por|sorted by|sort by|order by"),
    ("sort", "asc", "low-calorie|low-calories|low-carb|low-carbs|low-fat"),
    ("nutrient", "calories", "low-calorie|low-calories"),
    ("nutrient", "carbs", "low-carb|low-carbs"),
    ("nutrient", "fat", "low-fat"),
    ("sort", "desc", "high-protein|high-fiber|high-fibre"),
    ("nutrient", "protein", "high-protein"),
    ("nutrient", "fiber", "high-fiber|high-fibre"),
    (
        "delta",
        "",
        (
            "perdido|perdi|bajado|baje|subido|subi|ganado|gane|engorde|engordado|adelgace"
            "|adelgazado|lost|gained|lose|gain|dropped|put on|perdeu|ganhou|emagreci|emagrecido"
            "|engordei|baixei|ganhei|menos que|mas que|mais que|less than|more than"
        ),
    ),
    ("goal", "", "objetivo|objetivos|meta|metas|goal|goals|target|ideal|deseado|desejado"),
    ("zero_load", "", "peso corporal|sin peso|sem peso|bodyweight|body weight|no weight|sin carga"),
    ("rest", "", "descanso|descansos|descansa|rest|resting|pausa|intervalo"),
    ("called", "", "llamada|llamado|chamada|chamado|called|named|de nombre|com o nome"),
)


def _phrases() -> tuple[dict[tuple[str, ...], frozenset[Concept]], int]:
    table: dict[tuple[str, ...], set[Concept]] = {}
    for kind, value, spellings in _LEXICON:
        for spelling in spellings.split("|"):
            words = tuple(fold(spelling).replace("\u2019", "'").split())
            table.setdefault(words, set()).add((kind, value))
    longest = max(len(words) for words in table)
    return {words: frozenset(concepts) for words, concepts in table.items()}, longest


_PHRASES, _LONGEST = _phrases()


@dataclass(frozen=True, slots=True)
class Item:
    """A token (a phrase of words is one ``Word``) and the concepts it may stand for."""

    token: Token
    concepts: frozenset[Concept] = frozenset()

    def value(self, kind: ConceptKind) -> str | None:
        """The value of this item's concept of ``kind`` (None: it has none)."""
        return next((value for k, value in self.concepts if k == kind), None)

    def values(self, kind: ConceptKind) -> list[str]:
        """Every value of this item's concepts of ``kind``."""
        return sorted(value for k, value in self.concepts if k == kind)

    def means(self, kind: ConceptKind, value: str | None = None) -> bool:
        """Whether this item may stand for a concept of ``kind`` (with ``value``)."""
        return any(k == kind and (value is None or v == value) for k, v in self.concepts)

    @property
    def meaningful(self) -> bool:
        """Whether this item stands for some concept other than the guards that only stop a
        write (a wish, a condition, someone else's value): "sentadilla" stays a search word."""
        return any(kind not in _GUARDS for kind, _ in self.concepts)

    @property
    def norm(self) -> str:
        """The folded text of a word or a mark ("" for numbers and dates)."""
        token = self.token
        if isinstance(token, Word):
            return token.norm
        return token.text if isinstance(token, Mark) else ""


def _key(token: Token) -> str | None:
    if isinstance(token, Word):
        return token.norm
    if isinstance(token, Mark):
        return token.text
    return None


def _match(tokens: Sequence[Token], at: int) -> tuple[int, frozenset[Concept]]:
    """The longest phrase starting at ``at``: its length in tokens and its concepts."""
    for size in range(min(_LONGEST, len(tokens) - at), 0, -1):
        keys = tuple(_key(t) for t in tokens[at : at + size])
        if None in keys:
            continue
        words = tuple(part for key in keys if key for part in key.split())
        found = _PHRASES.get(words)
        if found:
            return size, found
    key = _key(tokens[at]) or ""
    if key.endswith("'s"):  # "mother's", "dog's": whose it is, nothing else
        owner = _PHRASES.get((key[:-2],), frozenset())
        return 1, frozenset(c for c in owner if c[0] == "other")
    return 1, frozenset()


def _merge(text: str, tokens: Sequence[Token]) -> Token:
    if len(tokens) == 1:
        return tokens[0]
    start, end = tokens[0].start, tokens[-1].end
    norm = " ".join(_key(t) or "" for t in tokens)
    return Word(text[start:end], start, end, norm)


_NOT_NEGATIONS: Final[dict[str, frozenset[str]]] = {"pt": frozenset({"no"})}
"""Words that are a negation elsewhere but not in this language: Portuguese "no" is em + o
("no jantar", in the dinner)."""
_ENGLISH_ONLY: Final = frozenset({"son", "sons", "us", "we", "sat", "sun", "mon", "wed"})
"""Words that mean something only in English: Spanish "son" is "they are"."""
_ENGLISH_VERBS: Final = frozenset({"ate"})
"""Words that are a verb only in English: Portuguese "até" (until) folds to "ate" and keeps
its other meanings ("até 100 kcal", "até 1 de junho")."""


def tag(text: str, tokens: Sequence[Token], lang: str | None = None) -> list[Item]:
    """``tokens`` of ``text`` as items, phrases merged (longest match first). ``lang`` (when
    known) drops the meanings a word does not have in that language (pt "no" is no negation)."""
    not_negations = _NOT_NEGATIONS.get(lang or "", frozenset())
    items: list[Item] = []
    at = 0
    while at < len(tokens):
        if isinstance(tokens[at], Number | DateLiteral):
            items.append(Item(tokens[at]))
            at += 1
            continue
        size, concepts = _match(tokens, at)
        if size == 1 and _key(tokens[at]) in not_negations:
            concepts = frozenset(c for c in concepts if c[0] != "neg")
        if size == 1 and lang not in {None, "en"} and _key(tokens[at]) in _ENGLISH_ONLY:
            concepts = frozenset()
        if size == 1 and _key(tokens[at]) in _ENGLISH_VERBS and not _english(tokens[at], lang):
            concepts = frozenset(c for c in concepts if c[0] != "verb")
        if size == 1 and tokens[at].text.casefold() == "s\u00ed":  # "sí" (yes) is no "si" (if)
            concepts = frozenset(c for c in concepts if c[0] != "if")
        items.append(Item(_merge(text, tokens[at : at + size]), concepts))
        at += size
    return items


def _english(token: Token, lang: str | None) -> bool:
    """Whether ``token`` may be an English word: the message is in English (or its language is
    not known) and the word is written without accents ("até" is Portuguese)."""
    return lang in {None, "en"} and token.text.isascii()


def _folded_words(text: str) -> frozenset[str]:
    return frozenset(fold(word) for word in text.split())


FUNCTION_WORDS: Final = _folded_words(
    "de del la el los las un una unos unas lo mi mis me con sin para por en y o que a al "
    "su sus tu tus le les se es son era fue esta este esto ese esa hay tiene tienen tenga "
    "tengan contenga contengan tengo sobre como mas muy algo alguno alguna algunos algunas "
    "todo todos todas favor porfa cual cuales quiero puedes podrias "
    "the a an of with without for in on and or some any me my mine that which who whom "
    "there is are was were have has had do does did i you your it its to from by at as "
    "please what show all give gimme want like would could can about "
    "o os as um uma uns umas do da dos das no na nos nas em ao aos e ou meu minha meus "
    "minhas com sem tem têm tenho ha há pelo pela pelos pelas num numa algum alguma alguns "
    "algumas todo todos todas qual quais isso este esta quero pode podes poderia"
)
"""Words that only glue a sentence together: never a food, an exercise or a note's key."""
